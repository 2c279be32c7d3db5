#include "textflag.h"

// func dotInt8AVX2(a *int16, b *int8, n int) int32
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y3, Y3, Y3

loop32:
	CMPQ CX, $32
	JL   loop16
	VPMOVSXBW (DI), Y1
	VPMADDWD  (SI), Y1, Y1
	VPADDD    Y1, Y0, Y0
	VPMOVSXBW 16(DI), Y2
	VPMADDWD  32(SI), Y2, Y2
	VPADDD    Y2, Y3, Y3
	ADDQ      $32, DI
	ADDQ      $64, SI
	SUBQ      $32, CX
	JMP       loop32

loop16:
	CMPQ CX, $16
	JL   done
	VPMOVSXBW (DI), Y1
	VPMADDWD  (SI), Y1, Y1
	VPADDD    Y1, Y0, Y0

done:
	VPADDD       Y3, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, ret+24(FP)
	VZEROUPPER
	RET

// func dotInt8x8AVX2(a *int8, b *int8, n int) int32
TEXT ·dotInt8x8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y3, Y3, Y3

loop32:
	CMPQ CX, $32
	JL   loop16
	VPMOVSXBW (DI), Y1
	VPMOVSXBW (SI), Y4
	VPMADDWD  Y4, Y1, Y1
	VPADDD    Y1, Y0, Y0
	VPMOVSXBW 16(DI), Y2
	VPMOVSXBW 16(SI), Y5
	VPMADDWD  Y5, Y2, Y2
	VPADDD    Y2, Y3, Y3
	ADDQ      $32, DI
	ADDQ      $32, SI
	SUBQ      $32, CX
	JMP       loop32

loop16:
	CMPQ CX, $16
	JL   done
	VPMOVSXBW (DI), Y1
	VPMOVSXBW (SI), Y4
	VPMADDWD  Y4, Y1, Y1
	VPADDD    Y1, Y0, Y0

done:
	VPADDD       Y3, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, ret+24(FP)
	VZEROUPPER
	RET

package hnsw

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// dotInt8AVX2 returns Σ a[i]·b[i] over the first n components; n is a
// multiple of 16.
//
//go:noescape
func dotInt8AVX2(a *int16, b *int8, n int) int32

func dotInt8(a []int16, b []int8) int32 {
	n := len(b) &^ 15
	if !hasAVX2 || n == 0 {
		return dotInt8Generic(a, b)
	}
	_ = a[len(b)-1]
	s := dotInt8AVX2(&a[0], &b[0], n)
	if n < len(b) {
		s += dotInt8Generic(a[n:], b[n:])
	}
	return s
}

// dotInt8x8AVX2 is dotInt8AVX2 for two int8 vectors.
//
//go:noescape
func dotInt8x8AVX2(a *int8, b *int8, n int) int32

func dotInt8x8(a, b []int8) int32 {
	n := len(b) &^ 15
	if !hasAVX2 || n == 0 {
		return dotInt8x8Generic(a, b)
	}
	_ = a[len(b)-1]
	s := dotInt8x8AVX2(&a[0], &b[0], n)
	if n < len(b) {
		s += dotInt8x8Generic(a[n:], b[n:])
	}
	return s
}

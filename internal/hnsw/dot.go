package hnsw

// dotInt8Generic returns Σ a[i]·b[i] over len(b) components.
func dotInt8Generic(a []int16, b []int8) int32 {
	a = a[:len(b)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(b); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(b); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// dotInt8x8Generic returns Σ a[i]·b[i] over len(b) components.
func dotInt8x8Generic(a, b []int8) int32 {
	a = a[:len(b)]
	var s int32
	for i := range b {
		s += int32(a[i]) * int32(b[i])
	}
	return s
}

//go:build !amd64

package hnsw

func dotInt8(a []int16, b []int8) int32 { return dotInt8Generic(a, b) }

func dotInt8x8(a, b []int8) int32 { return dotInt8x8Generic(a, b) }

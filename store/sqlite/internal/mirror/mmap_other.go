//go:build !unix

package mirror

import (
	"errors"
	"io"
	"os"
	"unsafe"
)

// mapFile reads f's first size bytes into memory 8-byte aligned: where
// a file cannot be mapped, the index holds a copy of it.
func mapFile(f *os.File, size int64) ([]byte, error) {
	buf := make([]uint64, (size+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), 8*len(buf))[:size]
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), b); err != nil {
		return nil, err
	}
	return b, nil
}

// unmapFile releases memory mapFile returned: the collector's.
func unmapFile([]byte) {}

// releaseMapped is a no-op where files are not mapped.
func releaseMapped([]byte) {}

// lockFile fails where no lock is taken here: index files are then
// written whole, never appended to.
func lockFile(*os.File) error { return errors.New("no file locks here") }

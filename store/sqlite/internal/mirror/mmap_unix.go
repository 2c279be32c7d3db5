//go:build unix

package mirror

import (
	"os"
	"syscall"
)

// mapFile maps f's first size bytes into memory, private and
// copy-on-write: the index reads its large arrays where they are, and a
// write into them (a link added, a slot recorded) copies the page for
// this process alone, never reaching the file. A file is never written
// in place (persist.go), so what is mapped stays what was checked.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
}

// unmapFile releases memory mapFile returned.
func unmapFile(b []byte) {
	if len(b) > 0 {
		_ = syscall.Munmap(b)
	}
}

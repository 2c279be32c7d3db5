//go:build unix

package mirror

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
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
	if int64(int(size)) != size {
		return nil, fmt.Errorf("index file of %d bytes: too large to map here", size)
	}
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
}

// unmapFile releases memory mapFile returned.
func unmapFile(b []byte) {
	if len(b) > 0 {
		_ = unix.Munmap(b)
	}
}

// releaseMapped drops the pages of b, a part of memory mapFile returned
// that the index no longer reads (what was decoded or copied out of it),
// from the process's resident memory; the pages it only partly covers
// stay. Were b read again it would read the file's bytes as mapped.
func releaseMapped(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((page - start%page) % page)
	hi := len(b) - int((start+uintptr(len(b)))%page)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(b[lo:hi], unix.MADV_DONTNEED)
}

// lockFile takes an exclusive lock of f, an index file a block is
// appended to, or fails at once if another process holds one: two
// appends never interleave.
func lockFile(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

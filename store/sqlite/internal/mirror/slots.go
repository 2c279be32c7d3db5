package mirror

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"unsafe"
)

// slotTable finds the slot of a key (a fact's row or id) without holding
// the keys: an open-addressing table, linear probing, whose entries are
// a slot and a fragment of its key's hash; a fragment that matches is
// confirmed against the key the slot holds (the caller's eq). It holds no
// pointer, so the GC never scans it, and it fills faster: in a profile of
// a first recall at 1M facts, the two tables took 0.27 s to fill where
// the two Go maps they replace took about 0.35 s each. The zero value is
// an empty table.
type slotTable struct {
	t []uint64 // fragment<<32 | slot+1; 0: empty
	n int
}

// newSlotTable returns a table sized for n keys.
func newSlotTable(n int) slotTable {
	return slotTable{t: make([]uint64, slotTableLen(n))}
}

const slotMask = 1<<32 - 1

// frag returns the part of hash h an entry keeps.
func frag(h uint64) uint64 { return h &^ slotMask }

// find returns the index of the entry of the key of hash h, or -1.
func (s *slotTable) find(h uint64, eq func(slot int) bool) int {
	if len(s.t) == 0 {
		return -1
	}
	mask := len(s.t) - 1
	for j := int(h) & mask; ; j = (j + 1) & mask {
		e := s.t[j]
		if e == 0 {
			return -1
		}
		if frag(e) == frag(h) && eq(int(e&slotMask)-1) {
			return j
		}
	}
}

// get returns the slot of the key of hash h.
func (s *slotTable) get(h uint64, eq func(slot int) bool) (int, bool) {
	if j := s.find(h, eq); j >= 0 {
		return int(s.t[j]&slotMask) - 1, true
	}
	return 0, false
}

// put sets the slot of the key of hash h, replacing an equal key's;
// hashOf returns the hash of the key in a slot already in the table (to
// grow it).
func (s *slotTable) put(h uint64, slot int, eq func(slot int) bool, hashOf func(slot int) uint64) {
	e := frag(h) | uint64(slot+1)
	if j := s.find(h, eq); j >= 0 {
		s.t[j] = e
		return
	}
	if 2*(s.n+1) > len(s.t) {
		old := s.t
		s.t = make([]uint64, max(16, 2*len(old)))
		for _, o := range old {
			if o != 0 {
				s.place(hashOf(int(o&slotMask)-1), o)
			}
		}
	}
	s.place(h, e)
	s.n++
}

// putNew records slot under hash h for a key the table does not hold
// (a load's keys are distinct), without looking for it first; the
// table must have been sized for it (newSlotTable).
func (s *slotTable) putNew(h uint64, slot int) {
	s.place(h, frag(h)|uint64(slot+1))
	s.n++
}

// place puts entry e of hash h in the first free place from its home.
func (s *slotTable) place(h, e uint64) {
	mask := len(s.t) - 1
	j := int(h) & mask
	for s.t[j] != 0 {
		j = (j + 1) & mask
	}
	s.t[j] = e
}

// del removes the key of hash h, moving back the entries after it that
// its place kept from their home (backward-shift deletion: no
// tombstones); hashOf returns the hash of the key in a slot.
func (s *slotTable) del(h uint64, eq func(slot int) bool, hashOf func(slot int) uint64) {
	i := s.find(h, eq)
	if i < 0 {
		return
	}
	s.n--
	mask := len(s.t) - 1
	for k := i; ; {
		s.t[i] = 0
		for {
			k = (k + 1) & mask
			e := s.t[k]
			if e == 0 {
				return
			}
			home := int(hashOf(int(e&slotMask)-1)) & mask
			// e may fill i unless its home lies cyclically in (i, k].
			if (i <= k && (home <= i || home > k)) || (i > k && home <= i && home > k) {
				s.t[i] = e
				i = k
				break
			}
		}
	}
}

// idHash returns the hash of a fact id under seed. It is the same in
// every process for the same seed, so a table of slots by id can be
// kept in the bank's index file (persist.go) with the seed it was made
// with: the bank's (idSeedOf), so ids chosen to collide in one bank's
// table do not collide in another's, and a bank's file is the same
// whichever process writes it.
func idHash(seed uint64, id string) uint64 {
	h := seed ^ uint64(len(id))*0x9e3779b97f4a7c15
	for len(id) >= 8 {
		w := uint64(id[0]) | uint64(id[1])<<8 | uint64(id[2])<<16 | uint64(id[3])<<24 |
			uint64(id[4])<<32 | uint64(id[5])<<40 | uint64(id[6])<<48 | uint64(id[7])<<56
		h = (h ^ w) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		id = id[8:]
	}
	var w uint64
	for i := range len(id) {
		w |= uint64(id[i]) << (8 * i)
	}
	return pkHash(int64(h ^ w))
}

// idSeedOf returns the seed of the hashes of a bank's fact ids: of its
// id and creation time (µs).
func idSeedOf(bank string, created int64) uint64 {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s", created, bank))
	return binary.LittleEndian.Uint64(sum[:])
}

// pkHash returns the hash of a fact's row (splitmix64's finalizer).
func pkHash(pk int64) uint64 {
	z := uint64(pk) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// slotOfPK returns the slot of the live fact in row pk.
func (x *bankIndex) slotOfPK(pk int64) (int, bool) {
	return x.pos.get(pkHash(pk), func(i int) bool { return x.meta[i].pk == pk })
}

// slotOfID returns the slot of the live fact of id.
func (x *bankIndex) slotOfID(id string) (int, bool) {
	return x.byID.get(idHash(x.idSeed, id), func(i int) bool { return x.meta[i].id == id })
}

func (x *bankIndex) pkHashOf(i int) uint64 { return pkHash(x.meta[i].pk) }
func (x *bankIndex) idHashOf(i int) uint64 { return idHash(x.idSeed, x.meta[i].id) }

// recordSlot records slot i, whose entry is in meta, under its row and
// id.
func (x *bankIndex) recordSlot(i int) {
	e := &x.meta[i]
	pk, id := e.pk, e.id
	x.pos.put(pkHash(pk), i, func(j int) bool { return x.meta[j].pk == pk }, x.pkHashOf)
	x.byID.put(idHash(x.idSeed, id), i, func(j int) bool { return x.meta[j].id == id }, x.idHashOf)
}

// forgetSlot forgets slot i's row and id; its entry still holds them.
func (x *bankIndex) forgetSlot(i int) {
	pk, id := x.meta[i].pk, x.meta[i].id
	x.pos.del(pkHash(pk), func(j int) bool { return x.meta[j].pk == pk }, x.pkHashOf)
	x.byID.del(idHash(x.idSeed, id), func(j int) bool { return x.meta[j].id == id }, x.idHashOf)
}

// reindex records every live slot afresh, in tables sized for them.
func (x *bankIndex) reindex() {
	x.pos, x.byID = newSlotTable(x.live), newSlotTable(x.live)
	for i := range x.meta {
		if !x.meta[i].dead {
			x.recordSlot(i)
		}
	}
}

// slotTableLen returns the entries of a table sized for n keys
// (newSlotTable).
func slotTableLen(n int) int { return max(16, 1<<bits.Len(uint(2*n))) }

// slotTableIn returns the table of n slots whose entries b holds as
// little-endian uint64s (appendSlotTable), kept in b (a mapped index
// file, copy-on-write: a put or a del writes into it) when inPlace, this
// machine's order is theirs and b is 8-byte aligned, copied otherwise.
// A table of another size, with an entry of a slot out of range or other
// than n entries is an error: a lookup must never index past the
// entries.
func slotTableIn(b []byte, n int, inPlace bool) (slotTable, error) {
	size := slotTableLen(n)
	if len(b) != 8*size {
		return slotTable{}, fmt.Errorf("slot table of %d bytes for %d slots", len(b), n)
	}
	var t []uint64
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0 {
		t = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), size)
		if !inPlace {
			t = slices.Clone(t)
		}
	} else {
		t = make([]uint64, size)
		for i := range t {
			t[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
	}
	used := 0
	for _, e := range t {
		if e == 0 {
			continue
		}
		used++
		if s := e & slotMask; s > uint64(n) {
			return slotTable{}, fmt.Errorf("slot table entry of slot %d in %d", s-1, n)
		}
	}
	if used != n {
		return slotTable{}, fmt.Errorf("slot table of %d entries for %d slots", used, n)
	}
	return slotTable{t: t, n: n}, nil
}

// appendSlotTable appends t's entries to b as little-endian uint64s.
func appendSlotTable(b []byte, t *slotTable) []byte {
	for _, e := range t.t {
		b = binary.LittleEndian.AppendUint64(b, e)
	}
	return b
}

// littleEndian reports whether this machine stores integers as index
// files do, so their arrays can be used where they are mapped.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

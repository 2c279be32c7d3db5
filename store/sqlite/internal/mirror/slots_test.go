package mirror

import (
	"math/rand/v2"
	"testing"
)

// TestSlotTable checks the table against a Go map over random puts,
// replacements and deletions, with hashes forced to collide often (a
// few distinct homes) so probing and backward-shift deletion are
// exercised.
func TestSlotTable(t *testing.T) {
	for _, spread := range []uint64{3, 1 << 40} {
		rng := rand.New(rand.NewPCG(spread, 1))
		keys := make([]int64, 0, 4096) // slot → key
		hash := func(k int64) uint64 { return pkHash(k) % spread * 0x9e3779b97f4a7c15 }
		var s slotTable
		want := map[int64]int{}
		hashOf := func(i int) uint64 { return hash(keys[i]) }
		for step := range 20_000 {
			k := int64(rng.IntN(1500))
			eq := func(i int) bool { return keys[i] == k }
			if rng.IntN(3) == 0 {
				s.del(hash(k), eq, hashOf)
				delete(want, k)
			} else {
				keys = append(keys, k)
				s.put(hash(k), len(keys)-1, eq, hashOf)
				want[k] = len(keys) - 1
			}
			if s.n != len(want) {
				t.Fatalf("spread %d, step %d: %d entries, want %d", spread, step, s.n, len(want))
			}
			if step%500 == 0 {
				for k := range int64(1500) {
					got, ok := s.get(hash(k), func(i int) bool { return keys[i] == k })
					if w, wok := want[k]; ok != wok || got != w && ok {
						t.Fatalf("spread %d, step %d: key %d at %d (%v), want %d (%v)", spread, step, k, got, ok, w, wok)
					}
				}
			}
		}
	}
}

package storetest

import (
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.FactMerger = (*memStore)(nil)

// MergeFact implements memory.FactMerger: memory.CheckMerge first, then
// every change, so a failed call changes nothing.
func (s *memStore) MergeFact(_ context.Context, bankID, dup, keeper string, at time.Time) (bool, error) {
	return with(s, bankID, func(b *memBank) (bool, error) {
		d, k := b.facts[dup], b.facts[keeper]
		if dup == "" || keeper == "" || dup == keeper {
			d, k = nil, nil
		}
		if ok, err := memory.CheckMerge(dup, keeper, d, k); !ok || err != nil {
			return false, err
		}
		for r := range b.refs {
			if r.FactID == dup {
				delete(b.refs, r)
				b.refs[memory.EntityRef{FactID: keeper, EntityID: r.EntityID}] = true
			}
		}
		for key, l := range b.links {
			if l.FromID != dup && l.ToID != dup {
				continue
			}
			delete(b.links, key)
			if l.FromID == dup {
				l.FromID = keeper
			}
			if l.ToID == dup {
				l.ToID = keeper
			}
			nk := memLinkKey{from: l.FromID, to: l.ToID, kind: l.Kind, entity: l.EntityID}
			if _, ok := b.links[nk]; ok || l.FromID == l.ToID {
				continue
			}
			b.links[nk] = l
		}
		for id, o := range b.observations {
			if src, changed := memory.ReplaceFactID(o.SourceFactIDs, dup, keeper); changed {
				c := *o
				c.SourceFactIDs = src
				b.observations[id] = &c
			}
		}
		for id, r := range b.relations {
			if fs, changed := memory.ReplaceFactID(r.FactIDs, dup, keeper); changed {
				c := *r
				c.FactIDs = fs
				b.relations[id] = &c
			}
		}
		kc := *k
		kc.AccessCount += d.AccessCount
		if d.LastAccessed.After(kc.LastAccessed) {
			kc.LastAccessed = d.LastAccessed
		}
		kc.ReinforcementCount += 1 + d.ReinforcementCount
		kc.Tags = slices.Clone(k.Tags)
		b.facts[keeper] = &kc
		dc := *d
		dc.Status, dc.SupersededBy, dc.ExpiredAt = memory.StatusSuperseded, keeper, at.UTC().Truncate(time.Microsecond)
		b.facts[dup] = &dc
		return true, nil
	})
}

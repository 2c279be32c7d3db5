package storetest

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

func (s *memStore) Neighbours(_ context.Context, bankID string, factIDs []string, radius int) (map[string][]string, error) {
	return with(s, bankID, func(b *memBank) (map[string][]string, error) {
		radius = max(radius, 0)
		out := map[string][]string{}
		for _, id := range factIDs {
			f, ok := b.facts[id]
			if !ok {
				continue
			}
			if f.DocumentID == "" {
				out[id] = []string{id}
				continue
			}
			var doc []*memory.Fact
			for _, x := range b.facts {
				if x.DocumentID == f.DocumentID {
					doc = append(doc, x)
				}
			}
			slices.SortFunc(doc, func(a, b *memory.Fact) int { return cmp.Compare(a.Seq, b.Seq) })
			at := slices.IndexFunc(doc, func(x *memory.Fact) bool { return x.ID == id })
			var win []string
			for _, x := range doc[max(at-radius, 0):min(at+radius+1, len(doc))] {
				win = append(win, x.ID)
			}
			out[id] = win
		}
		return out, nil
	})
}

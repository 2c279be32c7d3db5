package storetest

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.Forgetter = (*memStore)(nil)

// Forget implements memory.Forgetter: every check first, then the
// removal, so a failed call changes nothing.
func (s *memStore) Forget(_ context.Context, bankID string, ids []string, rec *memory.ForgetRecord) (*memory.ForgetRecord, error) {
	ids, err := memory.ValidateForgetIDs(ids)
	if err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) (*memory.ForgetRecord, error) {
		var missing []string
		for _, id := range ids {
			if b.facts[id] == nil {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return nil, memory.Errorf(memory.ENOTFOUND, "forget: unknown fact(s) in bank %q: %s", bankID, strings.Join(missing, ", "))
		}
		out := &memory.ForgetRecord{}
		if rec != nil {
			*out = *rec
		}
		out.BankID, out.Counts = bankID, memory.ForgetCounts{}
		if out.At.IsZero() {
			out.At = time.Now()
		}
		out.At = out.At.UTC().Truncate(time.Microsecond)
		if out.ID == "" {
			out.ID = memory.ForgetRecordID(out.At)
		}
		for _, r := range b.forgetLog {
			if r.ID == out.ID {
				return nil, memory.Errorf(memory.ECONFLICT, "forget record %s already exists", out.ID)
			}
		}
		b.forget(ids, &out.Counts)
		b.forgetLog = append(b.forgetLog, out)
		c := *out
		return &c, nil
	})
}

// forget removes the facts ids, which exist, and every trace of them.
func (b *memBank) forget(ids []string, c *memory.ForgetCounts) {
	gone := map[string]bool{}
	docs, chunks := map[string]bool{}, map[string]bool{}
	for _, id := range ids {
		f := b.facts[id]
		gone[id] = true
		if f.DocumentID != "" {
			docs[f.DocumentID] = true
		}
		if f.ChunkID != "" {
			chunks[f.ChunkID] = true
		}
	}
	c.Facts = len(ids)
	for p := range b.verdicts {
		if gone[p.A] || gone[p.B] {
			delete(b.verdicts, p)
		}
	}
	perEntity := map[string]int{}
	perFact := map[string][]string{}
	for r := range b.refs {
		if gone[r.FactID] {
			perEntity[r.EntityID]++
			perFact[r.FactID] = append(perFact[r.FactID], r.EntityID)
			delete(b.refs, r)
			c.Refs++
		}
	}
	for k, l := range b.links {
		if gone[l.FromID] || gone[l.ToID] {
			delete(b.links, k)
			c.Links++
		}
	}
	for e, n := range perEntity {
		if en := b.entities[e]; en != nil {
			cp := *en
			cp.MentionCount = max(cp.MentionCount-n, 0)
			b.entities[e] = &cp
		}
	}
	for _, es := range perFact {
		sort.Strings(es)
		es = slices.Compact(es)
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				k := [2]string{es[i], es[j]}
				if _, ok := b.cooc[k]; ok {
					b.cooc[k]--
					if b.cooc[k] <= 0 {
						delete(b.cooc, k)
					}
				}
			}
		}
	}
	for e := range perEntity {
		left := false
		for r := range b.refs {
			if r.EntityID == e {
				left = true
				break
			}
		}
		if left || b.entities[e] == nil {
			continue
		}
		delete(b.entities, e)
		delete(b.entVecs, e)
		c.Entities++
		for k := range b.cooc {
			if k[0] == e || k[1] == e {
				delete(b.cooc, k)
			}
		}
		for k, l := range b.links {
			if l.EntityID == e {
				delete(b.links, k)
				c.Links++
			}
		}
		for id, r := range b.relations {
			if r.SubjectID == e || r.ObjectID == e {
				delete(b.relations, id)
				c.Relations++
			}
		}
	}
	keep := func(refs []string) []string {
		return slices.DeleteFunc(slices.Clone(refs), func(id string) bool { return gone[id] })
	}
	for id, r := range b.relations {
		left := keep(r.FactIDs)
		if len(left) == len(r.FactIDs) {
			continue
		}
		if len(left) == 0 {
			delete(b.relations, id)
			c.Relations++
			continue
		}
		cp := *r
		cp.FactIDs = left
		b.relations[id] = &cp
		c.RelationsShrunk++
	}
	for closed, by := range b.closes { // the stores' foreign keys cascade
		if b.relations[closed] == nil || b.relations[by] == nil {
			delete(b.closes, closed)
		}
	}
	for id, o := range b.observations {
		left := keep(o.SourceFactIDs)
		if len(left) == len(o.SourceFactIDs) {
			continue
		}
		if len(left) == 0 {
			delete(b.observations, id)
			c.Observations++
			continue
		}
		cp := *o
		cp.EvidenceCount = max(o.EvidenceCount-(len(o.SourceFactIDs)-len(left)), 0)
		cp.SourceFactIDs = left
		b.observations[id] = &cp
		for _, fid := range left {
			if f := b.facts[fid]; f != nil && !gone[fid] {
				fc := *f
				fc.ConsolidatedAt = time.Time{}
				b.facts[fid] = &fc
			}
		}
		c.Reconsolidate++
	}
	for id, d := range b.dreams {
		if slices.ContainsFunc(d.SourceFactIDs, func(f string) bool { return gone[f] }) {
			delete(b.dreams, id)
			c.Dreams++
		}
	}
	for id := range gone {
		delete(b.facts, id)
	}
	for id, f := range b.facts {
		if gone[f.SupersededBy] || chunks[f.ChunkID] {
			fc := *f
			if gone[f.SupersededBy] {
				fc.SupersededBy = ""
			}
			if chunks[f.ChunkID] {
				fc.ChunkID = ""
			}
			b.facts[id] = &fc
		}
	}
	for id := range chunks {
		if b.chunks[id] != nil {
			delete(b.chunks, id)
			c.Chunks++
		}
	}
	for d := range docs {
		left := false
		for _, f := range b.facts {
			if f.DocumentID == d {
				left = true
				break
			}
		}
		if left {
			if doc := b.docs[d]; doc != nil {
				dc := *doc
				dc.Content = ""
				b.docs[d] = &dc
			}
			continue
		}
		for id, ch := range b.chunks {
			if ch.DocumentID == d {
				delete(b.chunks, id)
				c.Chunks++
			}
		}
		if b.docs[d] != nil {
			delete(b.docs, d)
			c.Documents++
		}
	}
}

// ForgetSelect implements memory.Forgetter.
func (s *memStore) ForgetSelect(_ context.Context, bankID string, sel memory.ForgetSelector) ([]string, error) {
	if err := memory.ValidateForgetSelector(sel); err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) ([]string, error) {
		var itemDocs []string
		if sel.Item != "" {
			itemDocs = b.versions[[2]string{sel.Source, sel.Item}]
			for _, d := range b.docs {
				if d.Source == sel.Source && d.ItemID == sel.Item {
					itemDocs = append(slices.Clone(itemDocs), d.ID)
				}
			}
		}
		var fs []*memory.Fact
		for _, f := range b.facts {
			if sel.Item != "" && !slices.Contains(itemDocs, f.DocumentID) {
				continue
			}
			if sel.EntityID != "" && !b.refs[memory.EntityRef{FactID: f.ID, EntityID: sel.EntityID}] {
				continue
			}
			if sel.DocumentID != "" && f.DocumentID != sel.DocumentID {
				continue
			}
			t := f.EventTime()
			if !sel.From.IsZero() && t.Before(sel.From) {
				continue
			}
			if !sel.To.IsZero() && !t.Before(sel.To) {
				continue
			}
			fs = append(fs, f)
		}
		sort.Slice(fs, func(i, j int) bool { return fs[i].Seq < fs[j].Seq })
		return factIDs(fs), nil
	})
}

// ForgetLog implements memory.Forgetter.
func (s *memStore) ForgetLog(_ context.Context, bankID string, limit int) ([]*memory.ForgetRecord, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.ForgetRecord, error) {
		out := make([]*memory.ForgetRecord, 0, len(b.forgetLog))
		for _, r := range b.forgetLog {
			c := *r
			out = append(out, &c)
		}
		sort.SliceStable(out, func(i, j int) bool {
			if !out[i].At.Equal(out[j].At) {
				return out[i].At.After(out[j].At)
			}
			return out[i].ID > out[j].ID
		})
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		return out, nil
	})
}

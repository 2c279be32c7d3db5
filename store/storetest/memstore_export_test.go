package storetest

import (
	"cmp"
	"context"
	"flag"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.Exporter = (*memStore)(nil)
	_ memory.Importer = (*memStore)(nil)
)

var update = flag.Bool("update", false, "rewrite testdata/export-v4.jsonl from the reference store")

// Export implements memory.Exporter in the order the contract gives.
func (s *memStore) Export(_ context.Context, bankID string, fn func(*memory.ExportRecord) error) error {
	s.mu.Lock()
	b, err := s.get(bankID)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	// Banks are never changed in place: b is a consistent snapshot.
	var recs []*memory.ExportRecord
	add := func(kind string, set func(r *memory.ExportRecord)) {
		r := &memory.ExportRecord{Kind: kind}
		set(r)
		recs = append(recs, r)
	}
	add(memory.RecordHeader, func(r *memory.ExportRecord) { r.Version, r.Bank = memory.ExportVersion, memory.ExportedBank(&b.bank) })
	for _, d := range sortedBy(b.docs, func(d *memory.Document) string { return d.ID }) {
		add(memory.RecordDocument, func(r *memory.ExportRecord) { r.Document = memory.ExportedDocument(d) })
		var chunks []*memory.Chunk
		for _, c := range b.chunks {
			if c.DocumentID == d.ID {
				chunks = append(chunks, c)
			}
		}
		slices.SortFunc(chunks, func(x, y *memory.Chunk) int { return cmp.Compare(x.Index, y.Index) })
		for _, c := range chunks {
			add(memory.RecordChunk, func(r *memory.ExportRecord) { r.Chunk = memory.ExportedChunk(c) })
		}
	}
	facts := slices.Collect(maps.Values(b.facts))
	slices.SortFunc(facts, func(x, y *memory.Fact) int { return cmp.Compare(x.Seq, y.Seq) })
	for _, f := range facts {
		add(memory.RecordFact, func(r *memory.ExportRecord) { r.Fact = memory.ExportedFact(f) })
	}
	for _, e := range sortedBy(b.entities, func(e *memory.Entity) string { return e.ID }) {
		c := *e
		c.Aliases = slices.Sorted(slices.Values(e.Aliases))
		add(memory.RecordEntity, func(r *memory.ExportRecord) { r.Entity = memory.ExportedEntity(&c, b.entVecs[e.ID]) })
	}
	var refs []memory.ExportRef
	for ref := range b.refs {
		refs = append(refs, memory.ExportRef{FactID: ref.FactID, EntityID: ref.EntityID, Seq: b.facts[ref.FactID].Seq})
	}
	slices.SortFunc(refs, func(x, y memory.ExportRef) int {
		return cmp.Or(strings.Compare(x.FactID, y.FactID), strings.Compare(x.EntityID, y.EntityID))
	})
	for _, ref := range refs {
		add(memory.RecordRef, func(r *memory.ExportRecord) { r.Ref = &ref })
	}
	var coocs []memory.ExportCooccurrence
	for k, n := range b.cooc {
		coocs = append(coocs, memory.ExportCooccurrence{EntityA: k[0], EntityB: k[1], Count: n})
	}
	slices.SortFunc(coocs, func(x, y memory.ExportCooccurrence) int {
		return cmp.Or(strings.Compare(x.EntityA, y.EntityA), strings.Compare(x.EntityB, y.EntityB))
	})
	for _, c := range coocs {
		add(memory.RecordCooccurrence, func(r *memory.ExportRecord) { r.Cooccurrence = &c })
	}
	for _, rel := range sortedBy(b.relations, func(r *memory.Relation) string { return r.ID }) {
		add(memory.RecordRelation, func(r *memory.ExportRecord) { r.Relation = memory.ExportedRelation(rel) })
	}
	var links []memory.Link
	for _, l := range b.links {
		links = append(links, l)
	}
	slices.SortFunc(links, func(x, y memory.Link) int {
		return cmp.Or(strings.Compare(x.FromID, y.FromID), strings.Compare(string(x.Kind), string(y.Kind)),
			strings.Compare(x.ToID, y.ToID), strings.Compare(x.EntityID, y.EntityID))
	})
	for _, l := range links {
		add(memory.RecordLink, func(r *memory.ExportRecord) { r.Link = memory.ExportedLink(&l) })
	}
	for _, o := range sortedBy(b.observations, func(o *memory.Observation) string { return o.ID }) {
		add(memory.RecordObservation, func(r *memory.ExportRecord) { r.Observation = memory.ExportedObservation(o) })
	}
	for _, source := range slices.Sorted(maps.Keys(b.watermarks)) {
		w := b.watermarks[source]
		add(memory.RecordWatermark, func(r *memory.ExportRecord) { r.Watermark = memory.ExportedWatermark(&w) })
	}
	for _, name := range slices.Sorted(maps.Keys(b.sessions)) {
		ss := b.sessions[name]
		x := &memory.ExportSession{Session: name, NextSeq: ss.next}
		for i, m := range ss.msgs {
			x.Messages = append(x.Messages, memory.ExportSessionMessage{Seq: m.Seq, Role: m.Role, MessageID: m.ID, Speaker: m.Speaker, Text: m.Text, At: m.Time, Received: ss.received[i]})
		}
		add(memory.RecordSession, func(r *memory.ExportRecord) { r.Session = x })
	}
	for _, name := range slices.Sorted(maps.Keys(b.blocks)) {
		add(memory.RecordBlock, func(r *memory.ExportRecord) { r.Block = memory.ExportedBlock(b.blocks[name]) })
	}
	for _, id := range slices.Sorted(maps.Keys(b.directives)) {
		add(memory.RecordDirective, func(r *memory.ExportRecord) { r.Directive = memory.ExportedDirective(b.directives[id]) })
	}
	for _, id := range slices.Sorted(maps.Keys(b.standing)) {
		add(memory.RecordStanding, func(r *memory.ExportRecord) { r.Standing = memory.ExportedStanding(b.standing[id]) })
	}
	for _, r := range recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// Import implements memory.Importer on a copy of the bank, swapped in
// only if every record goes in.
func (s *memStore) Import(_ context.Context, bankID string, recs []*memory.ExportRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, err := s.get(bankID)
	if err != nil {
		return err
	}
	b := old.clone()
	conflict := func(what, id string) error {
		return memory.Errorf(memory.ECONFLICT, "import: %s %s is already in bank %q", what, id, bankID)
	}
	for _, rec := range recs {
		switch {
		case rec.Kind == memory.RecordDocument && rec.Document != nil:
			if b.docs[rec.Document.ID] != nil {
				return conflict("document", rec.Document.ID)
			}
			b.docs[rec.Document.ID] = rec.Document.Document(bankID)
		case rec.Kind == memory.RecordChunk && rec.Chunk != nil:
			if b.chunks[rec.Chunk.ID] != nil || b.docs[rec.Chunk.DocumentID] == nil {
				return conflict("chunk", rec.Chunk.ID)
			}
			b.chunks[rec.Chunk.ID] = rec.Chunk.Chunk(bankID)
		case rec.Kind == memory.RecordFact && rec.Fact != nil:
			f := rec.Fact.Fact(bankID)
			if f.ID == "" || f.Seq <= 0 {
				return memory.Errorf(memory.EINVALID, "import: a fact needs an id and a positive seq")
			}
			if n := len(f.Embedding); n > 0 {
				if b.bank.Dimension == 0 {
					b.bank.Dimension = n
				}
				if n != b.bank.Dimension {
					return memory.Errorf(memory.EINVALID, "import: fact %s has dimension %d, bank %q holds %d", f.ID, n, bankID, b.bank.Dimension)
				}
			}
			if b.facts[f.ID] != nil {
				return conflict("fact", f.ID)
			}
			b.facts[f.ID] = f
			b.nextSeq = max(b.nextSeq, f.Seq+1)
		case rec.Kind == memory.RecordEntity && rec.Entity != nil:
			if b.entities[rec.Entity.ID] != nil {
				return conflict("entity", rec.Entity.ID)
			}
			b.entities[rec.Entity.ID] = rec.Entity.Entity(bankID)
			if len(rec.Entity.Embedding) > 0 {
				if b.entVecs == nil {
					b.entVecs = map[string][]float32{}
				}
				b.entVecs[rec.Entity.ID] = slices.Clone(rec.Entity.Embedding)
			}
		case rec.Kind == memory.RecordRef && rec.Ref != nil:
			ref := memory.EntityRef{FactID: rec.Ref.FactID, EntityID: rec.Ref.EntityID}
			if b.refs[ref] {
				return conflict("ref", ref.FactID)
			}
			b.refs[ref] = true
		case rec.Kind == memory.RecordCooccurrence && rec.Cooccurrence != nil:
			k := [2]string{rec.Cooccurrence.EntityA, rec.Cooccurrence.EntityB}
			if _, ok := b.cooc[k]; ok {
				return conflict("co-occurrence", k[0])
			}
			b.cooc[k] = rec.Cooccurrence.Count
		case rec.Kind == memory.RecordRelation && rec.Relation != nil:
			if b.relations[rec.Relation.ID] != nil {
				return conflict("relation", rec.Relation.ID)
			}
			b.relations[rec.Relation.ID] = rec.Relation.Relation(bankID)
		case rec.Kind == memory.RecordLink && rec.Link != nil:
			l := rec.Link.Link(bankID)
			k := memLinkKey{from: l.FromID, to: l.ToID, kind: l.Kind, entity: l.EntityID}
			if _, ok := b.links[k]; ok {
				return conflict("link", l.FromID)
			}
			b.links[k] = l
		case rec.Kind == memory.RecordObservation && rec.Observation != nil:
			o := rec.Observation.Observation(bankID)
			if o.ID == "" || o.Text == "" {
				return memory.Errorf(memory.EINVALID, "import: an observation needs an id and a text")
			}
			if b.observations[o.ID] != nil {
				return conflict("observation", o.ID)
			}
			if b.observations == nil {
				b.observations = map[string]*memory.Observation{}
			}
			b.observations[o.ID] = o
		case rec.Kind == memory.RecordWatermark && rec.Watermark != nil:
			if _, ok := b.watermarks[rec.Watermark.Source]; ok {
				return conflict("watermark", rec.Watermark.Source)
			}
			b.watermarks[rec.Watermark.Source] = *rec.Watermark.Watermark(bankID)
		case rec.Kind == memory.RecordSession && rec.Session != nil:
			x := rec.Session
			if b.sessions[x.Session] != nil {
				return conflict("session", x.Session)
			}
			ss := &memSession{next: x.NextSeq}
			for _, m := range x.Messages {
				ss.msgs = append(ss.msgs, memory.SessionMessage{Seq: m.Seq, Role: m.Role, Message: memory.Message{ID: m.MessageID, Speaker: m.Speaker, Text: m.Text, Time: m.At}})
				ss.received = append(ss.received, m.Received)
			}
			if b.sessions == nil {
				b.sessions = map[string]*memSession{}
			}
			b.sessions[x.Session] = ss
		case rec.Kind == memory.RecordBlock && rec.Block != nil:
			blk := rec.Block.Block(bankID)
			if err := memory.ValidateBlock(blk); err != nil {
				return memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
			}
			if b.blocks[blk.Name] != nil {
				return conflict("block", blk.Name)
			}
			if b.blocks == nil {
				b.blocks = map[string]*memory.Block{}
			}
			b.blocks[blk.Name] = blk
		case rec.Kind == memory.RecordDirective && rec.Directive != nil:
			d := rec.Directive.Directive(bankID)
			if err := memory.ValidateDirective(d); err != nil {
				return memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
			}
			if b.directives[d.ID] != nil {
				return conflict("directive", d.ID)
			}
			if b.directives == nil {
				b.directives = map[string]*memory.Directive{}
			}
			b.directives[d.ID] = d
		case rec.Kind == memory.RecordStanding && rec.Standing != nil:
			if err := memory.ValidateExportStanding(rec.Standing); err != nil {
				return memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
			}
			q := rec.Standing.StandingQuestion(bankID)
			if b.standing[q.ID] != nil {
				return conflict("standing question", q.ID)
			}
			if b.standing == nil {
				b.standing = map[string]*memory.StandingQuestion{}
			}
			b.standing[q.ID] = q
		default:
			return memory.Errorf(memory.EINVALID, "import: a record of kind %q cannot be imported (or is empty)", rec.Kind)
		}
	}
	s.banks[bankID] = b
	return nil
}

// sortedBy returns the values of m ordered by key.
func sortedBy[V any](m map[string]V, key func(V) string) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(x, y V) int { return strings.Compare(key(x), key(y)) })
	return out
}

// TestExportGolden_Update rewrites the golden export from the reference
// store when run with -update; the Export group then checks every store
// against it.
func TestExportGolden_Update(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/export-v4.jsonl")
	}
	s := newMemStore()
	WriteExportBank(t.Context(), t, s)
	b, err := ExportLines(t.Context(), s, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/export-v4.jsonl", b, 0o644); err != nil {
		t.Fatal(err)
	}
}

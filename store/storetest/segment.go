package storetest

import (
	"fmt"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// segmentBatch returns the batch of facts from..to-1 of document d (ids
// TestFactID(d.ID, i)), with a temporal link back from the first of them
// to the fact before it (of an earlier batch when from > 0) and one ref
// of each to entity.
func segmentBatch(d *memory.Document, from, to int, entity string) *memory.WriteBatch {
	w := &memory.WriteBatch{BankID: d.BankID, Document: d}
	for i := from; i < to; i++ {
		text := "segment fact " + TestFactID(d.ID, i)
		c := &memory.Chunk{ID: memory.ChunkID(d.BankID, d.ID, i), BankID: d.BankID, DocumentID: d.ID, Index: i, Text: text}
		f := NewTestFact(d.BankID, TestFactID(d.ID, i), text)
		f.DocumentID, f.ChunkID = d.ID, c.ID
		w.Chunks = append(w.Chunks, c)
		w.Facts = append(w.Facts, f)
		w.Refs = append(w.Refs, memory.EntityRef{FactID: f.ID, EntityID: entity})
		if i > 0 {
			w.Links = append(w.Links,
				memory.Link{BankID: d.BankID, FromID: TestFactID(d.ID, i-1), ToID: f.ID, Kind: memory.LinkTemporal, Weight: 1},
				memory.Link{BankID: d.BankID, FromID: f.ID, ToID: TestFactID(d.ID, i-1), Kind: memory.LinkTemporal, Weight: 1})
		}
	}
	episodes := 0
	if from == 0 {
		episodes = 1
	}
	w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: entity, Name: "Segment", Type: memory.EntityThing, FirstSeen: testTime, LastSeen: testTime}, Mentions: to - from, Episodes: episodes}}
	return w
}

// A document written in segments (memory.WriteBatch.Continue) ends as the
// same document in one batch would: every fact, chunk, ref and link
// (links across the segments' boundaries included), the entity's counts,
// and the content hash and content a later batch sets — here, as retain
// writes a document in segments, no content until a last batch that
// carries nothing but the document. A later segment is never a duplicate,
// even when its hash is the stored one.
func testWriteContinue(e *env) {
	e.newBank("b")
	e.newBank("one")
	const n, partial = 7, "partial-hash"
	ent := memory.EntityID("Segment")
	final := NewTestDocument("b", "doc", memory.SourceNote, "big", "the whole content")
	d := *final
	d.ContentHash, d.Content = partial, ""
	check := func(what string, want *memory.Document) {
		got := e.document("b", memory.SourceNote, "big")
		if got.ContentHash != want.ContentHash || got.Content != want.Content {
			e.t.Errorf("document after %s: content hash %q, content %q; want %q, %q", what, got.ContentHash, got.Content, want.ContentHash, want.Content)
		}
	}
	for from := 0; from < n; from += 3 {
		w := segmentBatch(&d, from, min(from+3, n), ent)
		w.Continue = from > 0
		if got, want := *e.write(w), (memory.WriteResult{DocumentID: "doc", Facts: len(w.Facts)}); got != want {
			e.t.Errorf("Write of segment at %d: got %+v, want %+v", from, got, want)
		}
		check(fmt.Sprintf("the segment at %d", from), &d)
	}
	last := &memory.WriteBatch{BankID: "b", Document: final, Continue: true}
	if got, want := *e.write(last), (memory.WriteResult{DocumentID: "doc"}); got != want {
		e.t.Errorf("Write of the last batch: got %+v, want %+v", got, want)
	}
	check("the last batch", final)
	// The same again changes nothing and is no duplicate.
	if got, want := *e.write(&memory.WriteBatch{BankID: "b", Document: final, Continue: true}), (memory.WriteResult{DocumentID: "doc"}); got != want {
		e.t.Errorf("Write of the last batch again: got %+v, want %+v", got, want)
	}
	check("the last batch again", final)
	whole := segmentBatch(NewTestDocument("one", "doc", memory.SourceNote, "big", "the whole content"), 0, n, ent)
	e.writeNew(whole)

	ids := batchIDs(whole)
	if got, want := factIDs(e.facts("b", ids...)), factIDs(e.facts("one", ids...)); !slices.Equal(got, want) || len(got) != n {
		e.t.Errorf("facts in segments: got %q, want %q (%d)", got, want, n)
	}
	linkSet := func(bank string) []memory.Link {
		ls := e.links(bank, ids)
		for i := range ls {
			ls[i].BankID = ""
		}
		slices.SortFunc(ls, func(a, b memory.Link) int { return cmpLink(a, b) })
		return slices.Compact(ls)
	}
	if got, want := linkSet("b"), linkSet("one"); !slices.Equal(got, want) || len(got) != 2*(n-1) {
		e.t.Errorf("links in segments: got %d %+v, want %d %+v", len(got), got, len(want), want)
	}
	if got, want := len(e.refs("b", ids...)), n; got != want {
		e.t.Errorf("refs in segments: got %d, want %d", got, want)
	}
	got, want := e.entity("b", ent), e.entity("one", ent)
	if got.MentionCount != want.MentionCount || got.EpisodeCount != want.EpisodeCount || got.MentionCount != n || got.EpisodeCount != 1 {
		e.t.Errorf("entity in segments: got %d mentions, %d episodes; want %d, %d (one batch: %d, %d)", got.MentionCount, got.EpisodeCount, n, 1, want.MentionCount, want.EpisodeCount)
	}
	if got, want := e.stats("b"), e.stats("one"); got != want {
		e.t.Errorf("Stats in segments: got %+v, want %+v (one batch)", got, want)
	}
	if got := e.document("b", memory.SourceNote, "big").ContentHash; got != final.ContentHash {
		e.t.Errorf("final content hash: got %q, want %q", got, final.ContentHash)
	}
}

// A batch that continues a document no longer stored — never written,
// replaced by another version of its item, or another document of the
// item — fails whole with ECONFLICT and writes nothing.
func testWriteContinueGone(e *env) {
	e.newBank("b")
	ent := memory.EntityID("Segment")
	d := NewTestDocument("b", "doc", memory.SourceNote, "big", "content")
	w := segmentBatch(d, 0, 2, ent)
	w.Continue = true
	if _, err := e.s.Write(e.ctx, cloneBatch(w)); memory.ErrorCode(err) != memory.ECONFLICT {
		e.t.Errorf("Write continuing an unknown document: got %v, want ECONFLICT", err)
	}
	if got := e.stats("b"); got.Facts != 0 || got.Documents != 0 {
		e.t.Errorf("Stats after a refused continuation: got %+v, want nothing", got)
	}

	e.writeNew(segmentBatch(d, 0, 2, ent))
	v2 := NewTestBatch("b", "doc-v2", "another version")
	v2.Document.ItemID = "big"
	if res := e.write(v2); !res.Replaced {
		e.t.Fatalf("Write of another version: got %+v, want Replaced", res)
	}
	before := e.stats("b")
	w = segmentBatch(d, 2, 4, ent)
	w.Continue = true
	if _, err := e.s.Write(e.ctx, cloneBatch(w)); memory.ErrorCode(err) != memory.ECONFLICT {
		e.t.Errorf("Write continuing a replaced document: got %v, want ECONFLICT", err)
	}
	if got := e.stats("b"); got != before {
		e.t.Errorf("Stats after a refused continuation: got %+v, want %+v", got, before)
	}
	if got := e.facts("b", batchIDs(w)...); len(got) != 0 {
		e.t.Errorf("facts of a refused continuation: got %q, want none", factIDs(got))
	}
}

// cmpLink orders links by their key.
func cmpLink(a, b memory.Link) int {
	for _, c := range [][2]string{{a.FromID, b.FromID}, {string(a.Kind), string(b.Kind)}, {a.ToID, b.ToID}, {a.EntityID, b.EntityID}} {
		if c[0] != c[1] {
			if c[0] < c[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

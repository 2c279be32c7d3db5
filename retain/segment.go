package retain

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/internal/ordered"
	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultSegmentBytes is the most text of one segment of a large
// document. A plain-text item longer than this (off the LLM path) is
// retained in segments: each extracted, embedded, linked and written in
// its own transaction, so that the memory a retain takes is bounded by a
// few segments, not by the document. A prepared item takes well over a
// hundred times its text in memory (one 384-float vector per sentence,
// refs, links, co-occurrences, statement arguments): measured, 784 MB
// for a 5 MB document in one piece (docs/scale.md, "Bounded memory").
const DefaultSegmentBytes = 256 << 10

// A document in segments is resumable, not all-or-nothing: recall sees
// its facts segment by segment as they are committed. Until the batch
// that completes it (after the last segment), the stored document has no
// content and its content hash is partialHash(hash), which no item's
// hash equals: a crash (or a canceled
// retain) leaves a document that a later retain of the same item and
// content — same bank, source, item id, text, speaker, time and segment
// size — continues from its first segment not committed, ending exactly
// where an uninterrupted retain would: the same document, fact and chunk
// ids, links across segment boundaries, entity counts and
// co-occurrences. A retain of other content replaces it as any new
// version of an item replaces the old one. The marker names the way the
// facts are numbered ("n": id.Nth), so a leftover of a build that numbered
// them otherwise is replaced, not continued under other ids.
func partialHash(hash string, segmentBytes int) string {
	return "partial-n" + strconv.Itoa(segmentBytes) + "-" + hash
}

// segmentBytes is the pipeline's segment size.
func (p *Pipeline) segmentBytes() int {
	if p.SegmentBytes > 0 {
		return p.SegmentBytes
	}
	return DefaultSegmentBytes
}

// segmented reports whether req is retained in segments: plain text
// longer than a segment, off the LLM path (whose resolution judges each
// item against everything before it, and whose extractor reads the item
// whole).
func (p *Pipeline) segmented(req *memory.RetainRequest) bool {
	return p.Judge == nil && !p.ResolveEntities && len(req.Messages) == 0 && len(req.Text) > p.segmentBytes()
}

// docGraph is what graph carries from one batch of a document to the
// next: the entities met so far, each with the latest fact that mentions
// it, and the document's latest fact, so that entity and temporal links
// cross segment boundaries as they would in one batch, and each entity's
// episode is counted once per document.
type docGraph struct {
	ents  map[string]*graphEntity // by entity id
	last  string                  // id of the document's latest fact
	batch int                     // the batch graph is building, from 1
}

// graphEntity is one entity of a document: its upsert for the batch
// being built, and the latest fact of the document that mentions it.
type graphEntity struct {
	up    memory.EntityUpsert
	last  string
	batch int // the batch up counts for
}

// begin starts a batch and returns the entities met so far.
func (g *docGraph) begin() map[string]*graphEntity {
	if g.ents == nil {
		g.ents = map[string]*graphEntity{}
	}
	g.batch++
	return g.ents
}

// segment is one piece of a large document.
type segment struct {
	// From the extraction: the segment's batch (chunks and facts, ids by
	// their index in the whole document), and what graph needs.
	batch *memory.WriteBatch
	xfs   []extract.Fact
	// done says the segment was committed by an earlier, interrupted
	// retain of the same document: it is extracted again, for the links
	// and entities that cross into the next, and not written.
	done bool
	err  error
}

// retainSegments is RetainWith for a large plain-text document (see
// partialHash for what is visible when): its text is cut into segments
// (splitSegments), each extracted and embedded in parallel a few ahead
// and linked and written in order in its own transaction, the first one
// storing the document (without its text) and the later ones continuing
// it (memory.WriteBatch.Continue); a last batch of its own writes the
// text, the content hash and along. Chunk
// and fact ids are numbered across the whole document, as in one batch.
// Entities are recognised within a segment: a capitalised word the
// extractor takes for a name from the rest of the text counts only
// within the segment it is in. The result has the counts of the whole
// document and no per-fact Outcomes (every fact is stored: there is no
// resolution off the LLM path).
func (p *Pipeline) retainSegments(ctx context.Context, req memory.RetainRequest, along Along) (*memory.RetainResult, error) {
	if err := validate(&req, memory.MaxDocumentBytes); err != nil {
		return nil, err
	}
	now := p.Now().UTC().Truncate(time.Microsecond)
	if req.Source == "" {
		req.Source = memory.SourceAPI
	}
	content, hash := canonical(&req)
	if req.ItemID == "" {
		req.ItemID = hash
	}
	size := p.segmentBytes()
	partial := partialHash(hash, size)
	old, err := p.Store.DocumentByItem(ctx, req.BankID, req.Source, req.ItemID)
	resume := false
	switch {
	case err == nil && old.ContentHash == hash:
		return &memory.RetainResult{DocumentID: old.ID, Duplicate: true}, p.MarkAlong(ctx, req.BankID, along)
	case err == nil && old.ContentHash == partial:
		// An interrupted retain of this very content: its times and ids.
		resume, req.At, now = true, old.OccurredAt, old.CreatedAt
	case err != nil && memory.ErrorCode(err) != memory.ENOTFOUND:
		return nil, err
	}
	if req.At.IsZero() {
		req.At = now
	}
	var expires time.Time
	if req.ShortTerm {
		ttl, err := p.shortTermTTL(ctx, req.BankID)
		if err != nil {
			return nil, err
		}
		expires = now.Add(ttl)
	}
	doc := &memory.Document{
		ID: id.Derive("doc", req.At, req.BankID, req.Source, req.ItemID, hash), BankID: req.BankID, Source: req.Source, ItemID: req.ItemID,
		ContentHash: partial, Content: content, Metadata: req.Metadata, Tags: req.Tags,
		OccurredAt: req.At, CreatedAt: now,
	}
	if resume {
		doc.ID = old.ID
	}
	if v, ok := p.Extractor.(interface{ Version() string }); ok {
		md := make(map[string]string, len(doc.Metadata)+1)
		for k, x := range doc.Metadata {
			md[k] = x
		}
		md["extractor"] = v.Version()
		doc.Metadata = md
	}
	// The document's text is written once, by the batch that completes
	// it (after the last segment): until then the stored document has no
	// content, so that neither the first segment writes the whole text
	// nor the last rewrites it to set the hash.
	final := *doc
	final.ContentHash = hash
	doc.Content = ""

	texts := splitSegments(req.Text, size)
	segs := make([]segment, len(texts))
	out := &memory.RetainResult{DocumentID: doc.ID}
	var g docGraph
	var stopped error
	var chunks, facts, written int
	stored := -1 // the leftover's chunks, counted when a resume needs them
	// Segments are extracted and embedded in parallel, a few ahead, and
	// numbered, linked and written in order: a segment's ids start where
	// the segments before it end.
	ordered.Run(ctx, len(texts), max(DefaultWorkers, 1), func(i int) {
		s := &segs[i]
		ex, err := p.Extractor.Extract(ctx, extract.Input{Text: texts[i], Speaker: req.Speaker, At: req.At})
		if s.err = err; err != nil {
			return
		}
		s.batch, s.xfs = p.segmentBatch(&req, doc, ex, now, expires)
		s.err = p.embed(ctx, req.BankID, s.batch.Facts)
	}, func(i int, started bool) {
		s := &segs[i]
		defer func() { segs[i] = segment{} }()
		switch {
		case stopped != nil:
			return
		case !started:
			stopped = ctx.Err()
			return
		case s.err != nil:
			stopped = s.err
			return
		}
		b := s.batch
		number(b, s.xfs, req.At, chunks, facts)
		chunks, facts = chunks+len(b.Chunks), facts+len(b.Facts)
		if resume && written == 0 {
			done, err := p.segmentStored(ctx, b, chunks, &stored)
			if err != nil {
				stopped = err
				return
			}
			s.done = done
		}
		if err := p.graph(ctx, b, s.xfs, nil, &g); err != nil {
			stopped = err
			return
		}
		out.Facts += len(b.Facts)
		out.Links += len(b.Links)
		if s.done {
			return
		}
		b.Continue = written > 0 || resume
		res, err := p.Store.Write(ctx, b)
		if err != nil {
			stopped = fmt.Errorf("segment %d of %d: %w", i+1, len(segs), err)
			return
		}
		if res.Duplicate {
			// The same content stored by another retain since the look
			// above: nothing of this one was written.
			stopped = errDuplicate
			out.DocumentID = res.DocumentID
			return
		}
		out.Replaced = out.Replaced || res.Replaced
		written++
	})
	if stopped == errDuplicate {
		return &memory.RetainResult{DocumentID: out.DocumentID, Duplicate: true}, p.MarkAlong(ctx, req.BankID, along)
	}
	if stopped != nil {
		return nil, stopped
	}
	if facts == 0 {
		return nil, memory.Errorf(memory.EINVALID, "nothing to remember: no facts found in the item")
	}
	// The last batch completes the document: its text and content hash,
	// and along. It carries nothing else, so that the segments' facts and
	// vectors are garbage by the time the text is written.
	segs, texts = nil, nil
	last := &memory.WriteBatch{BankID: req.BankID, Document: &final, Continue: true,
		Watermark: along.Watermark, DrainSession: along.DrainSession}
	if _, err := p.Store.Write(ctx, last); err != nil {
		return nil, fmt.Errorf("completing the document: %w", err)
	}
	out.Entities = len(g.ents)
	return out, nil
}

// errDuplicate stops retainSegments when its first write finds the item
// stored with the same content.
var errDuplicate = fmt.Errorf("duplicate")

// segmentBatch turns one segment's extraction into its batch of chunks
// and facts, as draft makes them for a document in one piece but for
// their ids, which number gives them.
func (p *Pipeline) segmentBatch(req *memory.RetainRequest, doc *memory.Document, ex *extract.Result, now, expires time.Time) (*memory.WriteBatch, []extract.Fact) {
	b := &memory.WriteBatch{BankID: req.BankID, Document: doc}
	for _, text := range ex.Chunks {
		b.Chunks = append(b.Chunks, &memory.Chunk{BankID: req.BankID, DocumentID: doc.ID, Text: text})
	}
	for _, xf := range ex.Facts {
		f := &memory.Fact{
			BankID: req.BankID, DocumentID: doc.ID, SourceRef: xf.SourceRef,
			Text: xf.Text, Kind: xf.Kind, Category: xf.Category, Confidence: xf.Confidence, Importance: xf.Importance,
			Sensitivity: xf.Sensitivity, Speaker: xf.Speaker, Tags: req.Tags,
			OccurredStart: xf.OccurredStart, OccurredEnd: xf.OccurredEnd, MentionedAt: xf.MentionedAt,
			ValidFrom: xf.OccurredStart, CreatedAt: now, Status: memory.StatusActive, DecayScore: 1, ExpiresAt: expires,
		}
		if p.Quarantine != nil && p.Quarantine(f.Text) {
			f.Status = memory.StatusQuarantined
		}
		b.Facts = append(b.Facts, f)
	}
	return b, ex.Facts
}

// number gives a segment's chunks and facts their ids: their indexes in
// the whole document (from chunk0 and fact0), as draft numbers a
// document in one piece.
func number(b *memory.WriteBatch, xfs []extract.Fact, at time.Time, chunk0, fact0 int) {
	doc := b.Document.ID
	for i, c := range b.Chunks {
		c.Index = chunk0 + i
		c.ID = memory.ChunkID(b.BankID, doc, c.Index)
	}
	for i, f := range b.Facts {
		f.ID = id.Nth("f", at, uint32(fact0+i), doc)
		if k := xfs[i].Chunk; k >= 0 && k < len(b.Chunks) {
			f.ChunkID = b.Chunks[k].ID
		}
	}
}

// splitSegments cuts text into pieces of at most size bytes (size > 0),
// each ending where the extractor would end a chunk if it can: after a
// blank line (a paragraph's end), else after a line, else after a
// sentence's end or a space, else at a character boundary. Pieces with
// nothing but white space are left out. Cut at paragraphs, the pieces
// give the extractor the same paragraphs, so the same chunks and
// sentences, as the whole text.
func splitSegments(text string, size int) []string {
	var out []string
	for len(text) > 0 {
		n := len(text)
		if n > size {
			n = cutAt(text, size)
		}
		if strings.TrimSpace(text[:n]) != "" {
			out = append(out, text[:n])
		}
		text = text[n:]
	}
	return out
}

// cutAt returns where to end the first piece of text, longer than size:
// after the last blank line, line, sentence end or space of its first
// size bytes, in that order of preference, else at the last character
// boundary within them. It is above zero and at most size, unless size
// is too small for text's first character.
func cutAt(text string, size int) int {
	s := text[:size]
	for _, sep := range []string{"\n\n", "\n", ". ", " "} {
		if i := strings.LastIndex(s, sep); i > 0 {
			return i + len(sep)
		}
	}
	for n := size; n > 0; n-- {
		if utf8.RuneStart(text[n]) {
			return n
		}
	}
	_, n := utf8.DecodeRuneInString(text)
	return n
}

// segmentStored reports whether the interrupted retain being resumed
// committed segment b, whose chunks end before chunk end: each segment
// is one transaction, committed in order. It is when its last fact is
// stored; a segment without facts, when the document holds its last
// chunk (the leftover's chunks counted once, into *stored, the first
// time a resume meets such a segment); a segment of neither writes no
// row and counts as committed.
func (p *Pipeline) segmentStored(ctx context.Context, b *memory.WriteBatch, end int, stored *int) (bool, error) {
	switch {
	case len(b.Facts) > 0:
		got, err := p.Store.Facts(ctx, b.BankID, []string{b.Facts[len(b.Facts)-1].ID})
		return len(got) == 1, err
	case len(b.Chunks) == 0:
		return true, nil
	}
	if *stored < 0 {
		cs, err := p.Store.Chunks(ctx, b.BankID, b.Document.ID)
		if err != nil {
			return false, err
		}
		*stored = len(cs)
	}
	return end <= *stored, nil
}

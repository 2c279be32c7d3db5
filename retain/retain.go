// Package retain is mnemo's write path: it validates an item, extracts
// facts and entities from it, embeds the facts, links them and hands the
// whole document to the store as one atomic batch (DESIGN §4).
//
// It works on contracts only (Store, memory.Embedder, Extractor); which
// store, embedder and extractor is the caller's choice. Every write of the
// write path — an item, and the rows that must land with it (a followed
// file's watermark, a session's drain) — is assembled here and nowhere
// else.
package retain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/internal/ordered"
	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultEmbedBatch is how many texts go to the embedder in one call.
const DefaultEmbedBatch = 256

// Extractor turns an item into chunks, facts and entities. The heuristic
// extractor and the LLM extractor both satisfy it.
type Extractor interface {
	Extract(ctx context.Context, in extract.Input) (*extract.Result, error)
}

// Store is the part of a memory.Store the write path uses: one door to
// write through, the duplicate check, the bank's embedder, and the reads
// entity and conflict resolution make. A store that is also a
// memory.BulkWriter takes RetainMany's groups in one commit.
type Store interface {
	memory.Writer
	DocumentByItem(ctx context.Context, bankID, source, item string) (*memory.Document, error)
	SetBankEmbedder(ctx context.Context, bankID, name string, dim int) error
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
	Chunks(ctx context.Context, bankID, documentID string) ([]*memory.Chunk, error)
	SearchVector(ctx context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error)
	EntitiesByName(ctx context.Context, bankID string, names []string) ([]*memory.Entity, error)
	SimilarEntities(ctx context.Context, bankID string, t memory.EntityType, vec []float32, k int, min float64) ([]memory.EntityHit, error)
	Relations(ctx context.Context, bankID string, q memory.RelationQuery) ([]*memory.Relation, error)
}

// Pipeline is the write path. Create it with New; it is safe for
// concurrent use.
type Pipeline struct {
	Store     Store
	Embedder  memory.Embedder
	Extractor Extractor
	// EmbedBatch is the embedder batch size (DefaultEmbedBatch).
	EmbedBatch int
	// Now is the clock (time.Now).
	Now func() time.Time
	// ShortTermTTL returns how long the facts of a short-term retain
	// (memory.RetainRequest.ShortTerm) into bank live: each gets
	// ExpiresAt = now + TTL. Nil means memory.DefaultShortTermTTL; the
	// façade resolves the bank's setting here.
	ShortTermTTL func(ctx context.Context, bank string) (time.Duration, error)

	// Judge, when set, resolves conflicts of new facts against similar
	// active facts (DESIGN §4 step 6): duplicates are skipped and
	// reinforce what they repeat; updates and contradictions supersede.
	// It is the LLM path's; without it nothing is superseded.
	Judge Judge
	// Quarantine, when set, holds back the facts whose text it flags
	// (text that reads as instructions to a model: the façade passes the
	// memory firewall's check): they are stored as
	// memory.StatusQuarantined — out of recall until a person approves
	// them — and take no part in conflict resolution, so that they never
	// supersede what the bank knows.
	Quarantine func(text string) bool
	// Redact, when set, masks what an item of RetainMany would store, in
	// place, on the goroutine that prepares it, right before: the façade
	// passes its memory firewall's redaction, which then runs in
	// parallel and alongside the writes instead of before all of them.
	// Retain and RetainWith take their item as it comes.
	Redact func(ctx context.Context, req *memory.RetainRequest)
	// ResolveEntities maps extracted names to known entities by alias and
	// by name-embedding similarity within a type, not only by exact
	// normalised name; the LLM path turns it on.
	ResolveEntities bool
	// ConflictSimilarity, ConflictCandidates, EntitySimilarity and
	// SemanticLinkSimilarity tune the LLM path; zero means their Default*.
	ConflictSimilarity     float64
	ConflictCandidates     int
	EntitySimilarity       float64
	SemanticLinkSimilarity float64
	// SegmentBytes is the text of one segment of a large document
	// (DefaultSegmentBytes when zero): see segment.go.
	SegmentBytes int

	checked sync.Map // bank id → true once the bank's embedder is recorded
}

// New returns a pipeline over the given store, embedder and extractor.
func New(store Store, emb memory.Embedder, ex Extractor) *Pipeline {
	return &Pipeline{Store: store, Embedder: emb, Extractor: ex, EmbedBatch: DefaultEmbedBatch, Now: time.Now}
}

// Retain remembers one item. The same (bank, source, item) with the same
// content again is a no-op reported as Duplicate; with new content it
// replaces the old version. Everything of one item is written in one
// transaction or not at all. Bad input is an EINVALID *memory.Error.
func (p *Pipeline) Retain(ctx context.Context, req memory.RetainRequest) (*memory.RetainResult, error) {
	return p.RetainWith(ctx, req, Along{})
}

// Along is what must be written in the same transaction as a retained
// item: the state that says the item was taken in. The zero value writes
// nothing more.
type Along struct {
	// Watermark moves a followed source past the item.
	Watermark *memory.Watermark
	// DrainSession removes the buffered session messages the item was
	// made of.
	DrainSession *memory.SessionDrain
}

func (a Along) empty() bool { return a.Watermark == nil && a.DrainSession == nil }

// RetainWith remembers one item as Retain does and writes along in the
// same transaction. An item that is a duplicate (already stored with the
// same content, found before extraction or by the write itself) still
// writes along, alone: the item was taken in either way. Any error —
// bad input (EINVALID, "nothing to remember" among it), a provider, the
// store — writes nothing, along included; the caller decides what then
// (MarkAlong records a skip).
//
// Another writer may supersede an edge this item supersedes between the
// item's resolution and its write: the store refuses the second close
// (memory.ErrRelationClosed), and the item is resolved again, against
// the edge that replaced it, up to MaxResolveAttempts times; the same
// for a fact it supersedes that another writer superseded since
// (memory.ErrFactSuperseded), and for a similar fact the resolution
// found active that another writer superseded before the resolution
// could judge it (resolveConflicts).
func (p *Pipeline) RetainWith(ctx context.Context, req memory.RetainRequest, along Along) (*memory.RetainResult, error) {
	if p.segmented(&req) {
		return p.retainSegments(ctx, req, along) // segment.go
	}
	var d *draft
	var res *memory.WriteResult
	for attempt := 1; ; attempt++ {
		var dup *memory.RetainResult
		var err error
		d, dup, err = p.prepare(ctx, req)
		if err == nil && dup == nil {
			d.batch.Watermark, d.batch.DrainSession = along.Watermark, along.DrainSession
			res, err = p.Store.Write(ctx, d.batch)
		}
		if err != nil {
			// Lost to another writer, as the item was resolved or as it
			// was written: resolve it again.
			if !memory.LostRace(err) || attempt == MaxResolveAttempts {
				return nil, err
			}
			select {
			case <-time.After(time.Duration(rand.Int64N(int64(attempt) * int64(10*time.Millisecond)))):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		if dup != nil {
			return dup, p.MarkAlong(ctx, req.BankID, along)
		}
		break
	}
	b := d.batch
	if res.Duplicate {
		// Stored by someone else since Prepare looked: the batch applied
		// nothing, along included.
		if err := p.MarkAlong(ctx, req.BankID, along); err != nil {
			return nil, err
		}
	}
	return result(b, res, d.outcomes), nil
}

// MarkAlong writes along alone, with no item: a followed line that holds
// nothing to remember is passed over, a session run the extractor found
// nothing in is drained. The zero Along writes nothing.
func (p *Pipeline) MarkAlong(ctx context.Context, bank string, along Along) error {
	if along.empty() {
		return nil
	}
	_, err := p.Store.Write(ctx, &memory.WriteBatch{BankID: bank, Watermark: along.Watermark, DrainSession: along.DrainSession})
	return err
}

// DefaultWorkers is how many items RetainMany prepares at once.
var DefaultWorkers = runtime.GOMAXPROCS(0)

// DefaultGroup is how many prepared items RetainMany writes per commit.
const DefaultGroup = 128

// DefaultGroupBytes bounds the text of one commit's items: a group ends
// after DefaultGroup items or once its items hold this much text,
// whichever comes first, and RetainMany prepares ahead only about as many
// items as that much text holds. A prepared item takes several times its
// text in memory (tokens, facts, vectors, refs, links), so an import of
// long conversations (BEAM's sessions are 140 KB each) would otherwise
// hold every item it has read, prepared, at once: measured, a peak RSS of
// about 470 MB for BEAM dev's 5.5 MB of text (130 MB with the bound). Short chat items (LoCoMo's, 3 KB) still make groups
// of DefaultGroup.
const DefaultGroupBytes = 1 << 20

// tailGroupBytes is the least text a group ends with for being as large
// as what is left after it (see RetainMany): below it, more commits
// would cost more than the shorter last write saves.
const tailGroupBytes = DefaultGroupBytes / 16

// RetainMany remembers many items, each with the guarantees of Retain, and
// reports each one's result or error in order. Items are prepared
// (extracted, embedded) in parallel and written in their order, in groups
// that share one commit when the store is a memory.BulkWriter. With a
// Judge (the LLM path) each item is resolved and written alone, in order,
// so it is judged against every item before it. It stops
// early only when ctx ends; unstarted items then get ctx's error.
// It is RetainStream over reqs.
func (p *Pipeline) RetainMany(ctx context.Context, reqs []memory.RetainRequest, progress func(done int)) ([]*memory.RetainResult, []error) {
	results := make([]*memory.RetainResult, len(reqs))
	errs := make([]error, len(reqs))
	read := 0
	p.RetainStream(ctx, func() (memory.RetainRequest, bool) {
		if read == len(reqs) {
			return memory.RetainRequest{}, false
		}
		read++
		return reqs[read-1], true
	}, func(i int, req *memory.RetainRequest, res *memory.RetainResult, err error) {
		reqs[i], results[i], errs[i] = *req, res, err // the request as retained (redacted)
	}, progress)
	for i := read; i < len(reqs); i++ {
		errs[i] = ctx.Err() // never read: ctx ended first
	}
	return results, errs
}

// streamItem is one request of RetainStream on its way: read, prepared,
// written.
type streamItem struct {
	i     int
	req   memory.RetainRequest
	bytes int
	// turn is closed once the item has a worker; after is the item
	// before's: items take workers in order.
	turn, after chan struct{}
	draft       *draft
	res         *memory.RetainResult
	err         error
}

// RetainStream is RetainMany over requests handed over one at a time, for
// input read as it is retained: an import of any size holds only what is
// read and not yet written. next returns the next request, or false once
// there is none; it runs on a goroutine of its own, one call at a time,
// and is called only while fewer than about DefaultGroupBytes of text (and
// DefaultWorkers + DefaultGroup requests) are read and not yet prepared.
// done receives each request (as retained: redacted) with its result or
// error, in order, on the caller's goroutine, once it is written; req is
// the pipeline's, valid during the call only. progress, when set, is
// called after each group with the count done so far. Once ctx ends
// nothing more is read, and what was read gets its result if it was
// written, ctx's error otherwise.
func (p *Pipeline) RetainStream(ctx context.Context, next func() (memory.RetainRequest, bool), done func(i int, req *memory.RetainRequest, res *memory.RetainResult, err error), progress func(done int)) {
	// On the LLM path an item's conflicts and relations are resolved
	// against everything written before it, so resolution and writes go
	// one item at a time, in order; extraction still runs in parallel.
	oneByOne := p.Judge != nil
	groupSize := DefaultGroup
	if oneByOne {
		groupSize = 1
	}
	bulk, _ := p.Store.(memory.BulkWriter)
	var (
		group      []*streamItem
		groupBytes int   // the text of the group's items
		stopped    error // ctx's error once it ended at a group's start
		read       int
		lastTurn   chan struct{}
	)
	// Prepare in parallel, hand over in order, so the writer rarely
	// waits; what is read ahead is bounded by its text, so memory stays
	// flat on huge imports: a group's worth of items ahead. Only
	// DefaultWorkers items are prepared at once, taken in order: many
	// items at once would share the cores and finish together, late,
	// leaving the writer idle until then.
	var (
		pending atomic.Int64 // the text read and not yet yielded
		ended   atomic.Bool  // next reported the end: pending is all that is left
		room    = make(chan struct{}, 1)
		tried   = map[string]bool{}
	)
	workers := make(chan struct{}, max(DefaultWorkers, 1))
	nextItem := func() (*streamItem, bool) {
		for pending.Load() >= DefaultGroupBytes {
			select {
			case <-room:
			case <-ctx.Done():
				return nil, false
			}
		}
		req, ok := next()
		if !ok {
			ended.Store(true)
			return nil, false
		}
		if b := req.BankID; !tried[b] {
			// Each bank's embedder is recorded before its first item is
			// prepared, while the preparers do not wait for it: an item
			// doing it as it was embedded waited for a group's
			// transaction, its core idle. A failure is left for the
			// bank's items to report.
			tried[b] = true
			_ = p.recordEmbedder(ctx, b)
		}
		it := &streamItem{i: read, req: req, bytes: req.TextBytes(), turn: make(chan struct{}), after: lastTurn}
		read++
		lastTurn = it.turn
		pending.Add(int64(it.bytes))
		return it, true
	}
	ordered.Stream(ctx, DefaultWorkers+DefaultGroup, nextItem, func(it *streamItem) {
		if it.after != nil {
			<-it.after
		}
		workers <- struct{}{}
		close(it.turn)
		defer func() { <-workers }()
		if p.Redact != nil {
			p.Redact(ctx, &it.req) // first: a long item's segments are cut from the redacted text
		}
		if p.segmented(&it.req) {
			return // retained alone, in segments, when its turn to be written comes
		}
		it.draft, it.res, it.err = p.draft(ctx, it.req)
		if it.err == nil && it.res == nil && !oneByOne {
			it.err = p.resolve(ctx, it.draft)
		}
	}, func(it *streamItem) {
		if len(group) == 0 && stopped == nil {
			stopped = ctx.Err()
		}
		groupBytes += it.bytes
		left := pending.Add(-int64(it.bytes))
		select {
		case room <- struct{}{}:
		default:
		}
		// A group also ends once it holds as much text as the items
		// after it (tailGroupBytes and up), once they are all read: the
		// last groups halve, so the write of the last one, which no
		// preparation overlaps, is short.
		last := len(group)+1 == groupSize || groupBytes >= DefaultGroupBytes ||
			(ended.Load() && int64(groupBytes) >= max(left, tailGroupBytes))
		switch {
		case stopped != nil:
			it.res, it.err, it.draft = nil, stopped, nil
			group = append(group, it)
		case p.segmented(&it.req):
			// A large document, in segments of its own commits, after
			// the items before it (segment.go).
			p.flushGroup(ctx, bulk, group, done)
			group = group[:0]
			it.res, it.err = p.retainSegments(ctx, it.req, Along{})
			group = append(group, it)
		default:
			if it.err == nil && it.res == nil && oneByOne {
				it.err = p.resolve(ctx, it.draft)
			}
			group = append(group, it)
		}
		if !last && !(ended.Load() && left == 0) {
			return
		}
		n := group[len(group)-1].i + 1
		p.flushGroup(ctx, bulk, group, done)
		group, groupBytes = group[:0], 0
		if progress != nil && stopped == nil {
			progress(n)
		}
	})
	if len(group) > 0 { // the end came after the last item was yielded
		n := group[len(group)-1].i + 1
		p.flushGroup(ctx, bulk, group, done)
		if progress != nil && stopped == nil {
			progress(n)
		}
	}
}

// flushGroup writes the prepared items of group in one commit (a
// BulkWriter's WriteMany) or one by one, and hands each item of group to
// done, in order. An item that lost a race for an edge or a fact
// (another writer closed or superseded it since the item was resolved)
// is resolved and written again, alone.
func (p *Pipeline) flushGroup(ctx context.Context, bulk memory.BulkWriter, group []*streamItem, done func(int, *memory.RetainRequest, *memory.RetainResult, error)) {
	var batches []*memory.WriteBatch
	var idx []*streamItem
	for _, it := range group {
		if it.err == nil && it.res == nil && it.draft != nil {
			batches = append(batches, it.draft.batch)
			idx = append(idx, it)
		}
	}
	switch {
	case len(batches) == 0:
	case bulk != nil:
		for k, o := range bulk.WriteMany(ctx, batches) {
			if o.Err != nil {
				idx[k].err = o.Err
			} else {
				idx[k].res = result(batches[k], o.Result, idx[k].draft.outcomes)
			}
		}
	default:
		for k, b := range batches {
			res, err := p.Store.Write(ctx, b)
			if err != nil {
				idx[k].err = err
			} else {
				idx[k].res = result(b, res, idx[k].draft.outcomes)
			}
		}
	}
	for _, it := range group {
		it.draft = nil
		if memory.LostRace(it.err) && ctx.Err() == nil {
			it.res, it.err = p.Retain(ctx, it.req)
		}
		done(it.i, &it.req, it.res, it.err)
	}
}

// MaxResolveAttempts is how many times RetainWith resolves and writes an
// item whose write lost a race for an edge or a fact (memory.LostRace)
// before it gives up with that error: enough for ten writers updating one
// edge at once, each attempt after a random pause of up to 10 ms times
// the attempts so far.
const MaxResolveAttempts = 10

// result turns a store's write result into a retain result, with the
// outcome of each extracted fact unless the write found the whole item a
// duplicate.
func result(b *memory.WriteBatch, res *memory.WriteResult, outcomes []memory.FactOutcome) *memory.RetainResult {
	out := &memory.RetainResult{DocumentID: res.DocumentID, Duplicate: res.Duplicate, Replaced: res.Replaced}
	if !res.Duplicate {
		out.Facts, out.Entities, out.Links = res.Facts, len(b.Entities), len(b.Links)
		out.Outcomes = outcomes
	}
	return out
}

// Prepare does all of a retain but the write: it validates the request,
// extracts, embeds and links, and returns the batch to write. When the
// item is already stored with the same content it returns no batch and
// the Duplicate result instead.
func (p *Pipeline) Prepare(ctx context.Context, req memory.RetainRequest) (*memory.WriteBatch, *memory.RetainResult, error) {
	d, dup, err := p.prepare(ctx, req)
	if err != nil || dup != nil {
		return nil, dup, err
	}
	return d.batch, nil, nil
}

// prepare is Prepare returning the whole draft, outcomes included.
func (p *Pipeline) prepare(ctx context.Context, req memory.RetainRequest) (*draft, *memory.RetainResult, error) {
	d, dup, err := p.draft(ctx, req)
	if err != nil || dup != nil {
		return nil, dup, err
	}
	if err := p.resolve(ctx, d); err != nil {
		return nil, nil, err
	}
	return d, nil, nil
}

// draft is a batch half prepared: extracted and embedded, not yet
// resolved against what the bank holds.
type draft struct {
	batch  *memory.WriteBatch
	xfs    []extract.Fact
	oldDoc string // id of the version of the item this one replaces
	now    time.Time
	// outcomes say what became of each extracted fact (outcome.go).
	outcomes []memory.FactOutcome
}

// draft does the part of Prepare that depends on the request alone:
// validation, the duplicate check, extraction and embedding. It can run
// for many items in parallel.
func (p *Pipeline) draft(ctx context.Context, req memory.RetainRequest) (*draft, *memory.RetainResult, error) {
	if err := Validate(&req); err != nil {
		return nil, nil, err
	}
	now := p.Now().UTC().Truncate(time.Microsecond)
	if req.Source == "" {
		req.Source = memory.SourceAPI
	}
	// The hash covers the time only as the caller gave it: the same text
	// retained twice without a time is the same item, not two.
	content, hash := canonical(&req)
	if req.ItemID == "" {
		req.ItemID = hash
	}
	if req.At.IsZero() {
		req.At = now
	}
	// Cheap early exit before extraction and embedding; Store.Write checks
	// again atomically.
	old, err := p.Store.DocumentByItem(ctx, req.BankID, req.Source, req.ItemID)
	var oldDoc string
	switch {
	case err == nil && old.ContentHash == hash:
		return nil, &memory.RetainResult{DocumentID: old.ID, Duplicate: true}, nil
	case err == nil:
		oldDoc = old.ID
	case memory.ErrorCode(err) != memory.ENOTFOUND:
		return nil, nil, err
	}
	// An unknown bank is also ENOTFOUND here; the write reports it.

	var expires time.Time
	if req.ShortTerm {
		ttl, err := p.shortTermTTL(ctx, req.BankID)
		if err != nil {
			return nil, nil, err
		}
		expires = now.Add(ttl)
	}

	ex, err := p.Extractor.Extract(ctx, extract.Input{Text: req.Text, Speaker: req.Speaker, Messages: req.Messages, At: req.At})
	if err != nil {
		return nil, nil, err
	}
	doc := &memory.Document{
		ID: id.Derive("doc", req.At, req.BankID, req.Source, req.ItemID, hash), BankID: req.BankID, Source: req.Source, ItemID: req.ItemID,
		ContentHash: hash, Content: content, Metadata: req.Metadata, Tags: req.Tags,
		OccurredAt: req.At, CreatedAt: now,
	}
	if v, ok := p.Extractor.(interface{ Version() string }); ok {
		// Which prompts produced the facts, for a later re-extraction.
		md := make(map[string]string, len(doc.Metadata)+1)
		for k, x := range doc.Metadata {
			md[k] = x
		}
		md["extractor"] = v.Version()
		doc.Metadata = md
	}
	b := &memory.WriteBatch{BankID: req.BankID, Document: doc}
	for i, text := range ex.Chunks {
		b.Chunks = append(b.Chunks, &memory.Chunk{ID: memory.ChunkID(req.BankID, doc.ID, i), BankID: req.BankID, DocumentID: doc.ID, Index: i, Text: text})
	}
	for i, xf := range ex.Facts {
		f := &memory.Fact{
			ID: id.Nth("f", req.At, uint32(i), doc.ID), BankID: req.BankID, DocumentID: doc.ID, SourceRef: xf.SourceRef,
			Text: xf.Text, Kind: xf.Kind, Category: xf.Category, Confidence: xf.Confidence, Importance: xf.Importance,
			Sensitivity: xf.Sensitivity, Speaker: xf.Speaker, Tags: req.Tags,
			OccurredStart: xf.OccurredStart, OccurredEnd: xf.OccurredEnd, MentionedAt: xf.MentionedAt,
			ValidFrom: xf.OccurredStart, CreatedAt: now, Status: memory.StatusActive, DecayScore: 1, ExpiresAt: expires,
		}
		if p.Quarantine != nil && p.Quarantine(f.Text) {
			f.Status = memory.StatusQuarantined
		}
		if xf.Chunk >= 0 && xf.Chunk < len(b.Chunks) {
			f.ChunkID = b.Chunks[xf.Chunk].ID
		}
		b.Facts = append(b.Facts, f)
	}
	if len(b.Facts) == 0 {
		return nil, nil, memory.Errorf(memory.EINVALID, "nothing to remember: no facts found in the item")
	}
	if err := p.embed(ctx, req.BankID, b.Facts); err != nil {
		return nil, nil, err
	}
	return &draft{batch: b, xfs: ex.Facts, oldDoc: oldDoc, now: now}, nil, nil
}

// resolve does the part of Prepare that reads the bank: entity and
// conflict resolution, relations, and the graph of the batch. On the LLM
// path its answer depends on every document written before, so
// RetainMany runs it in order, right before each write.
func (p *Pipeline) resolve(ctx context.Context, d *draft) error {
	b, xfs := d.batch, d.xfs
	extracted := b.Facts // resolveConflicts drops duplicates into a new slice
	var r *resolution
	if p.ResolveEntities || p.Judge != nil {
		r = &resolution{}
		if err := p.resolveEntities(ctx, b.BankID, xfs, r); err != nil {
			return err
		}
	}
	if p.Judge != nil {
		var err error
		if xfs, err = p.resolveConflicts(ctx, b, xfs, r, d.oldDoc, d.now); err != nil {
			return err
		}
	}
	if r != nil {
		if err := p.relations(ctx, b, xfs, r, d.now); err != nil {
			return err
		}
	}
	if err := p.graph(ctx, b, xfs, r, &docGraph{}); err != nil {
		return err
	}
	if r != nil {
		p.extraLinks(b, xfs, r)
	}
	d.outcomes = outcomes(extracted, b, r)
	return nil
}

// Validate checks a request before any work is done: a valid bank name,
// something to remember (text or messages, not both), valid UTF-8
// everywhere and at most memory.MaxContentBytes of text.
func Validate(req *memory.RetainRequest) error {
	return validate(req, memory.MaxContentBytes)
}

// validate is Validate with limit as the most text.
func validate(req *memory.RetainRequest, limit int) error {
	if err := memory.ValidateBankName(req.BankID); err != nil {
		return err
	}
	if req.Text != "" && len(req.Messages) > 0 {
		return memory.Errorf(memory.EINVALID, "give either text or messages, not both")
	}
	size := len(req.Text) + len(req.Speaker)
	check := func(what, s string) error {
		if !utf8.ValidString(s) {
			return memory.Errorf(memory.EINVALID, "%s is not valid UTF-8", what)
		}
		return nil
	}
	for _, f := range []struct{ what, s string }{{"text", req.Text}, {"speaker", req.Speaker}, {"source", req.Source}, {"item id", req.ItemID}} {
		if err := check(f.what, f.s); err != nil {
			return err
		}
	}
	empty := strings.TrimSpace(req.Text) == ""
	for i, m := range req.Messages {
		if err := check(fmt.Sprintf("message %d text", i+1), m.Text); err != nil {
			return err
		}
		if err := check(fmt.Sprintf("message %d speaker", i+1), m.Speaker); err != nil {
			return err
		}
		if err := check(fmt.Sprintf("message %d id", i+1), m.ID); err != nil {
			return err
		}
		size += len(m.Text) + len(m.Speaker)
		if strings.TrimSpace(m.Text) != "" {
			empty = false
		}
	}
	for _, t := range req.Tags {
		if err := check("tag", t); err != nil {
			return err
		}
	}
	if empty {
		return memory.Errorf(memory.EINVALID, "nothing to remember: the text is empty")
	}
	if size > limit {
		return memory.Errorf(memory.EINVALID, "item is %d bytes; the limit is %d bytes: split it into smaller items", size, limit)
	}
	return nil
}

// canonical returns the document content as stored and its hash. The hash
// covers everything that changes what is remembered: text or messages
// (speaker, text, id, time), the speaker, the item's time and, for a
// short-term item only, that it is short-term — so the same text
// retained long-term after short-term is a new item, not a duplicate
// that would leave it to expire, and a long-term item's hash is what it
// always was.
func canonical(req *memory.RetainRequest) (content, hash string) {
	if len(req.Messages) > 0 {
		b, _ := json.Marshal(req.Messages)
		content = string(b)
	} else {
		content = req.Text
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", content, req.Speaker, req.At.UnixMicro())
	if req.ShortTerm {
		h.Write([]byte("short_term\x00"))
	}
	return content, hex.EncodeToString(h.Sum(nil))
}

// shortTermTTL is the TTL of a short-term retain into bank
// (Pipeline.ShortTermTTL, else memory.DefaultShortTermTTL); a TTL that
// is not positive is EINVALID.
func (p *Pipeline) shortTermTTL(ctx context.Context, bank string) (time.Duration, error) {
	if p.ShortTermTTL == nil {
		return memory.DefaultShortTermTTL, nil
	}
	ttl, err := p.ShortTermTTL(ctx, bank)
	if err != nil {
		return 0, err
	}
	if ttl <= 0 {
		return 0, memory.Errorf(memory.EINVALID, "short-term TTL of bank %q is %s: want a positive duration", bank, ttl)
	}
	return ttl, nil
}

// recordEmbedder records the pipeline's embedder as bank's, once per
// bank (a write: the store refuses another embedder).
func (p *Pipeline) recordEmbedder(ctx context.Context, bank string) error {
	if _, ok := p.checked.Load(bank); ok {
		return nil
	}
	if err := p.Store.SetBankEmbedder(ctx, bank, p.Embedder.Name(), p.Embedder.Dimension()); err != nil {
		return err
	}
	p.checked.Store(bank, true)
	return nil
}

// embed embeds the facts in batches and records the bank's embedder.
func (p *Pipeline) embed(ctx context.Context, bank string, facts []*memory.Fact) error {
	if err := p.recordEmbedder(ctx, bank); err != nil {
		return err
	}
	n := p.EmbedBatch
	if n <= 0 {
		n = DefaultEmbedBatch
	}
	texts := make([]string, len(facts))
	for i, f := range facts {
		texts[i] = EmbedText(f)
	}
	for i := 0; i < len(texts); i += n {
		j := min(i+n, len(texts))
		vecs, err := p.Embedder.Embed(ctx, texts[i:j])
		if err != nil {
			return fmt.Errorf("embed facts: %w", err)
		}
		if len(vecs) != j-i {
			return memory.Errorf(memory.EINTERNAL, "embedder returned %d vectors for %d texts", len(vecs), j-i)
		}
		for k, v := range vecs {
			facts[i+k].Embedding = v
		}
	}
	return nil
}

// EmbedText is the text a fact's embedding is computed from: its speaker
// and its text, as a reader would see it.
func EmbedText(f *memory.Fact) string { return f.Body() }

// graph fills the batch's entities, refs, co-occurrences and links.
//
// Entities: one per normalised name (memory.EntityID, or the entity r
// resolved the name to), whatever type each mention gives it; its type is
// the best known of the batch's mentions (memory.BetterType): "Berlin is big"
// then "we live in Berlin" is one Berlin, a place.
//
// Refs and co-occurrences: a fact's refs list its distinct entities by
// salience (memory.RankEntities: mentions in the fact, then first
// mention), and the fact adds one co-occurrence to each pair among the
// first memory.CooccurrenceTop of them (memory.Cooccurring): bounded per
// fact, where every pair of a long turn's entities grew with its square.
//
// Links: each fact is tied to its neighbours in the document (temporal,
// both directions) and to the previous fact of the document that mentions
// the same entity (entity, both directions); chaining keeps links linear
// in mentions. Across documents, facts meet through their entity refs,
// which recall expands at query time, so no link is materialised there.
// The speaker of a fact is not an entity link: in a chat it would only
// repeat the temporal chain.
//
// g is what earlier batches of the same document left (segment.go): a
// fresh docGraph for a document in one batch.
func (p *Pipeline) graph(ctx context.Context, b *memory.WriteBatch, xfs []extract.Fact, r *resolution, g *docGraph) error {
	ents := g.begin()
	var order, ids []string
	var mentions []int
	for i, xf := range xfs {
		f := b.Facts[i]
		seen := map[string]int{} // entity id → index in ids
		ids, mentions = ids[:0], mentions[:0]
		for _, e := range xf.Entities {
			norm := memory.NormalizeName(e.Name)
			if norm == "" {
				continue
			}
			typ := entityType(e.Type)
			eid := memory.EntityID(norm)
			if r != nil {
				if x, ok := r.ents[norm]; ok {
					eid = x
				}
			}
			a := ents[eid]
			if a != nil {
				a.up.Entity.Type = memory.BetterType(a.up.Entity.Type, typ)
				if a.batch != g.batch { // of an earlier batch: counted anew
					a.batch, a.up.Mentions, a.up.Episodes = g.batch, 0, 0
					order = append(order, eid)
				}
			}
			if k, ok := seen[eid]; ok {
				mentions[k] += max(e.Mentions, 1)
				continue
			}
			seen[eid] = len(ids)
			ids = append(ids, eid)
			mentions = append(mentions, max(e.Mentions, 1))
			t := f.EventTime()
			if a == nil {
				a = &graphEntity{batch: g.batch, up: memory.EntityUpsert{Entity: memory.Entity{ID: eid, Name: e.Name, Type: typ, FirstSeen: t, LastSeen: t}, Episodes: 1}}
				if r != nil {
					a.up.Embedding = r.vecs[eid]
					a.up.Entity.Aliases = r.aliases[eid]
					a.up.Entity.Contradicted = slices.Contains(b.Contradicted, eid)
				}
				ents[eid] = a
				order = append(order, eid)
			}
			a.up.Mentions++
			if t.Before(a.up.Entity.FirstSeen) {
				a.up.Entity.FirstSeen = t
			}
			if t.After(a.up.Entity.LastSeen) {
				a.up.Entity.LastSeen = t
			}
			if memory.NormalizeName(e.Name) == memory.NormalizeName(f.Speaker) {
				continue
			}
			if prev := a.last; prev != "" {
				b.Links = append(b.Links,
					memory.Link{BankID: b.BankID, FromID: f.ID, ToID: prev, Kind: memory.LinkEntity, Weight: 1, EntityID: eid},
					memory.Link{BankID: b.BankID, FromID: prev, ToID: f.ID, Kind: memory.LinkEntity, Weight: 1, EntityID: eid})
			}
			a.last = f.ID
		}
		// The fact's refs go in rank order, the order the store keeps as
		// their rank, so that forgetting the fact takes off exactly the
		// co-occurrences it adds here.
		memory.RankEntities(ids, mentions)
		for _, eid := range ids {
			b.Refs = append(b.Refs, memory.EntityRef{FactID: f.ID, EntityID: eid})
		}
		memory.Cooccurring(ids, func(a, c string) {
			b.Cooccurrences = append(b.Cooccurrences, memory.Cooccurrence{EntityA: a, EntityB: c, Count: 1})
		})
		if prev := g.last; prev != "" {
			b.Links = append(b.Links,
				memory.Link{BankID: b.BankID, FromID: prev, ToID: f.ID, Kind: memory.LinkTemporal, Weight: 1},
				memory.Link{BankID: b.BankID, FromID: f.ID, ToID: prev, Kind: memory.LinkTemporal, Weight: 1})
		}
		g.last = f.ID
	}
	for _, eid := range order {
		b.Entities = append(b.Entities, ents[eid].up)
	}
	return nil
}

// entityType defaults an extracted entity's type to memory.EntityThing.
func entityType(t memory.EntityType) memory.EntityType {
	if t == "" {
		return memory.EntityThing
	}
	return t
}

package storetest

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/memory"
)

// memStore is the simplest faithful memory.Store: one mutex, maps, and
// brute force everywhere. It documents the contract executably and checks
// the suite itself. A write applies to a copy of the bank, swapped in only
// on success, so a failed batch leaves nothing. Rows are never changed in
// place once stored: an update stores a changed copy.
type memStore struct {
	mu    sync.Mutex
	banks map[string]*memBank
	keys  map[string]*memory.Key // by id; memstore_keys_test.go
}

var _ memory.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{banks: map[string]*memBank{}} }

type memBank struct {
	bank       memory.Bank
	nextSeq    int64
	docs       map[string]*memory.Document // by id
	chunks     map[string]*memory.Chunk    // by id
	facts      map[string]*memory.Fact     // by id
	entities   map[string]*memory.Entity   // by id
	refs       map[memory.EntityRef]bool
	cooc       map[[2]string]int
	links      map[memLinkKey]memory.Link
	relations  map[string]*memory.Relation
	closes     map[string]string // relation closed → the relation that closed it
	watermarks map[string]memory.Watermark
	entVecs    map[string][]float32   // entity id → name embedding
	jobs       map[string]*memory.Job // by id; memstore_queue_test.go
	sessions   map[string]*memSession // by session id; memstore_queue_test.go
	// observations by id; memstore_observation_test.go
	observations map[string]*memory.Observation
	blocks       map[string]*memory.Block               // by name; memstore_block_test.go
	directives   map[string]*memory.Directive           // by id; memstore_directive_test.go
	dreams       map[string]*memory.Dream               // by id; memstore_dream_test.go
	forgetLog    []*memory.ForgetRecord                 // oldest first; memstore_forget_test.go
	consolidate  *memConsolidate                        // runs and tier log; memstore_consolidate_test.go
	temporal     *memTemporal                           // entity and importance marks; memstore_temporal_test.go
	verdicts     map[memory.FactPair]memory.PairVerdict // memstore_group_test.go
	webhooks     []*memory.Webhook                      // oldest first; memstore_webhook_test.go
	versions     map[[2]string][]string                 // (source, item) → superseded document ids
	standing     map[string]*memory.StandingQuestion    // by id; memstore_standing_test.go
	communities  *memCommunities                        // memstore_community_test.go
}

// memLinkKey identifies a link: writing it again updates its weight.
type memLinkKey struct {
	from, to string
	kind     memory.LinkKind
	entity   string
}

func (b *memBank) clone() *memBank {
	c := *b
	c.docs, c.chunks, c.facts, c.entities = maps.Clone(b.docs), maps.Clone(b.chunks), maps.Clone(b.facts), maps.Clone(b.entities)
	c.refs, c.cooc, c.links = maps.Clone(b.refs), maps.Clone(b.cooc), maps.Clone(b.links)
	c.relations, c.watermarks, c.closes = maps.Clone(b.relations), maps.Clone(b.watermarks), maps.Clone(b.closes)
	c.entVecs = maps.Clone(b.entVecs)
	c.jobs, c.sessions = maps.Clone(b.jobs), maps.Clone(b.sessions)
	c.observations = maps.Clone(b.observations)
	c.blocks = maps.Clone(b.blocks)
	c.dreams = maps.Clone(b.dreams)
	c.forgetLog = slices.Clone(b.forgetLog)
	c.verdicts = maps.Clone(b.verdicts)
	c.versions = maps.Clone(b.versions)
	c.webhooks = slices.Clone(b.webhooks)
	return &c
}

func notFound(bank string) error { return memory.Errorf(memory.ENOTFOUND, "unknown bank %q", bank) }

// get returns the bank; the caller holds s.mu.
func (s *memStore) get(bank string) (*memBank, error) {
	b, ok := s.banks[bank]
	if !ok {
		return nil, notFound(bank)
	}
	return b, nil
}

// with runs fn on the bank under the store's lock.
func with[T any](s *memStore, bank string, fn func(b *memBank) (T, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bank)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(b)
}

func (s *memStore) CreateBank(_ context.Context, b *memory.Bank) error {
	nb := *b
	if nb.ID == "" {
		nb.ID = nb.Name
	}
	if nb.Name == "" {
		nb.Name = nb.ID
	}
	if err := memory.ValidateBankName(nb.ID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.banks[nb.ID]; ok {
		return memory.Errorf(memory.ECONFLICT, "bank %q exists", nb.ID)
	}
	s.banks[nb.ID] = &memBank{
		bank: nb, nextSeq: 1,
		docs: map[string]*memory.Document{}, chunks: map[string]*memory.Chunk{}, facts: map[string]*memory.Fact{},
		entities: map[string]*memory.Entity{}, refs: map[memory.EntityRef]bool{}, cooc: map[[2]string]int{},
		links:     map[memLinkKey]memory.Link{},
		relations: map[string]*memory.Relation{}, watermarks: map[string]memory.Watermark{},
	}
	return nil
}

func (s *memStore) Bank(_ context.Context, id string) (*memory.Bank, error) {
	return with(s, id, func(b *memBank) (*memory.Bank, error) {
		c := b.bank
		return &c, nil
	})
}

func (s *memStore) Banks(context.Context) ([]*memory.Bank, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*memory.Bank
	for _, id := range slices.Sorted(maps.Keys(s.banks)) {
		c := s.banks[id].bank
		out = append(out, &c)
	}
	return out, nil
}

func (s *memStore) DeleteBank(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.get(id); err != nil {
		return err
	}
	delete(s.banks, id)
	return nil
}

func (s *memStore) SetBankEmbedder(_ context.Context, bankID, name string, dim int) error {
	if name == "" || dim <= 0 {
		return memory.Errorf(memory.EINVALID, "embedder name and a positive dimension are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return err
	}
	if (b.bank.Embedder != "" && b.bank.Embedder != name) || (b.bank.Dimension != 0 && b.bank.Dimension != dim) {
		return memory.Errorf(memory.ECONFLICT, "bank %q holds vectors of %q (%d)", bankID, b.bank.Embedder, b.bank.Dimension)
	}
	b.bank.Embedder, b.bank.Dimension = name, dim
	return nil
}

func (s *memStore) Write(_ context.Context, w *memory.WriteBatch) (*memory.WriteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(w.BankID)
	if err != nil {
		return nil, err
	}
	nb := b.clone()
	res, err := nb.apply(w)
	if err != nil {
		return nil, err
	}
	if !res.Duplicate {
		s.banks[w.BankID] = nb
	}
	return res, nil
}

func (b *memBank) apply(w *memory.WriteBatch) (*memory.WriteResult, error) {
	res := &memory.WriteResult{}
	for _, f := range w.Facts {
		if len(f.Embedding) == 0 {
			continue
		}
		if b.bank.Dimension == 0 {
			b.bank.Dimension = len(f.Embedding)
		}
		if len(f.Embedding) != b.bank.Dimension {
			return nil, memory.Errorf(memory.EINVALID, "fact %s: dimension %d, bank holds %d", f.ID, len(f.Embedding), b.bank.Dimension)
		}
	}
	if d := w.Document; d != nil && w.Continue {
		old := b.docs[d.ID]
		if old == nil || old.Source != d.Source || old.ItemID != d.ItemID {
			return nil, memory.DocumentGone(d)
		}
		c := *old
		c.ContentHash, c.Content = d.ContentHash, d.Content
		b.docs[d.ID] = &c
		res.DocumentID = d.ID
	} else if d != nil {
		for _, old := range b.docs {
			if old.Source != d.Source || old.ItemID != d.ItemID {
				continue
			}
			if old.ContentHash == d.ContentHash {
				return &memory.WriteResult{Duplicate: true, DocumentID: old.ID}, nil
			}
			if old.ID == d.ID {
				b.removeDocument(old.ID)
			} else {
				b.supersedeDocument(old.ID, d.CreatedAt)
				b.removeDocument(d.ID) // an earlier version with this content
				if b.versions == nil {
					b.versions = map[[2]string][]string{}
				}
				k := [2]string{d.Source, d.ItemID}
				if !slices.Contains(b.versions[k], old.ID) {
					b.versions[k] = append(slices.Clone(b.versions[k]), old.ID)
				}
			}
			res.Replaced = true
		}
		if _, ok := b.docs[d.ID]; ok {
			return nil, memory.Errorf(memory.ECONFLICT, "document %s exists", d.ID)
		}
		c := *d
		c.BankID, c.Tags, c.Metadata = w.BankID, slices.Clone(d.Tags), maps.Clone(d.Metadata)
		b.docs[d.ID] = &c
		res.DocumentID = d.ID
	}
	for _, ch := range w.Chunks {
		if _, ok := b.chunks[ch.ID]; ok {
			return nil, memory.Errorf(memory.ECONFLICT, "chunk %s exists", ch.ID)
		}
		c := *ch
		c.BankID = w.BankID
		b.chunks[c.ID] = &c
	}
	for _, f := range w.Facts {
		if f.ID == "" {
			return nil, memory.Errorf(memory.EINVALID, "fact without id")
		}
		if _, ok := b.facts[f.ID]; ok {
			return nil, memory.Errorf(memory.ECONFLICT, "fact %s exists", f.ID)
		}
		c := *f
		c.BankID, c.Seq, c.Tags, c.Embedding = w.BankID, b.nextSeq, slices.Clone(f.Tags), slices.Clone(f.Embedding)
		if c.Status == "" {
			c.Status = memory.StatusActive
		}
		b.nextSeq++
		b.facts[c.ID] = &c
	}
	// A batch's upserts of one entity are summed first, as the stores sum
	// a transaction's.
	sums := map[string]*memory.EntityUpsert{}
	var order []string
	for _, u := range w.Entities {
		if s, ok := sums[u.Entity.ID]; ok {
			s.Add(u)
			continue
		}
		sums[u.Entity.ID] = &u
		order = append(order, u.Entity.ID)
	}
	for _, id := range order {
		b.upsertEntity(w.BankID, *sums[id])
	}
	for _, id := range w.Contradicted {
		if e, ok := b.entities[id]; ok {
			c := *e
			c.Contradicted = true
			b.entities[id] = &c
		}
	}
	for _, r := range w.Refs {
		b.refs[r] = true
	}
	for _, c := range w.Cooccurrences {
		b.cooc[[2]string{min(c.EntityA, c.EntityB), max(c.EntityA, c.EntityB)}] += c.Count
	}
	for _, l := range w.Links {
		l.BankID = w.BankID
		b.links[memLinkKey{l.FromID, l.ToID, l.Kind, l.EntityID}] = l
	}
	for _, r := range w.Relations {
		c := *r
		c.BankID, c.FactIDs = w.BankID, slices.Clone(r.FactIDs)
		b.relations[c.ID] = &c
	}
	for _, c := range w.RelationCloses {
		if b.relations[c.ClosedID] == nil || b.relations[c.ByID] == nil {
			return nil, memory.Errorf(memory.EINVALID, "relation close %s by %s: no such relation", c.ClosedID, c.ByID)
		}
		if _, ok := b.closes[c.ClosedID]; ok {
			return nil, memory.RelationClosedMeanwhile(c.ClosedID)
		}
		if b.closes == nil {
			b.closes = map[string]string{}
		}
		b.closes[c.ClosedID] = c.ByID
	}
	for _, id := range w.Reinforce {
		f, ok := b.facts[id]
		if !ok {
			return nil, memory.Errorf(memory.ENOTFOUND, "reinforce: unknown fact %s", id)
		}
		c := *f
		c.ReinforcementCount++
		b.facts[id] = &c
	}
	for _, sp := range w.Supersede {
		f, ok := b.facts[sp.FactID]
		if !ok {
			return nil, memory.Errorf(memory.ENOTFOUND, "supersede: unknown fact %s", sp.FactID)
		}
		if f.Status != memory.StatusActive {
			return nil, memory.FactSupersededMeanwhile(sp.FactID, f.Status)
		}
		c := *f
		c.Status, c.SupersededBy, c.ValidTo, c.ExpiredAt = memory.StatusSuperseded, sp.SupersededBy, sp.ValidTo, sp.ExpiredAt
		b.facts[c.ID] = &c
	}
	if wm := w.Watermark; wm != nil {
		c := *wm
		c.BankID = w.BankID
		b.watermarks[c.Source] = c
	}
	if d := w.DrainSession; d != nil {
		if err := b.drainSession(d); err != nil { // memstore_queue_test.go
			return nil, err
		}
	}
	res.Facts = len(w.Facts)
	return res, nil
}

// upsertEntity applies u by memory.MergeEntity, to a copy: clones of the
// bank share entities until one changes.
func (b *memBank) upsertEntity(bank string, u memory.EntityUpsert) {
	x := u.Entity
	c := memory.Entity{ID: x.ID, BankID: bank, Name: x.Name, Type: x.Type, Salience: 1, Tier: memory.TierEpisodic}
	if old, ok := b.entities[x.ID]; ok {
		c = *old
	}
	memory.MergeEntity(&c, u)
	if _, ok := b.entVecs[x.ID]; !ok && len(u.Embedding) > 0 {
		if b.entVecs == nil {
			b.entVecs = map[string][]float32{}
		}
		b.entVecs[x.ID] = slices.Clone(u.Embedding)
	}
	b.entities[x.ID] = &c
}

// removeDocument deletes a document with its chunks and facts and the
// refs and links of those facts.
// supersedeDocument retires a replaced version: its document and chunks
// go, its facts stay, the active ones superseded and expired at at.
func (b *memBank) supersedeDocument(id string, at time.Time) {
	delete(b.docs, id)
	for cid, c := range b.chunks {
		if c.DocumentID == id {
			delete(b.chunks, cid)
		}
	}
	if at.IsZero() {
		at = time.Now()
	}
	for fid, f := range b.facts {
		if f.DocumentID != id {
			continue
		}
		c := *f // the map's facts are shared with the clone a failed write restores
		c.ChunkID = ""
		if c.Status == memory.StatusActive {
			c.Status, c.ExpiredAt = memory.StatusSuperseded, at
		}
		b.facts[fid] = &c
	}
}

func (b *memBank) removeDocument(id string) {
	delete(b.docs, id)
	for cid, c := range b.chunks {
		if c.DocumentID == id {
			delete(b.chunks, cid)
		}
	}
	gone := map[string]bool{}
	for fid, f := range b.facts {
		if f.DocumentID == id {
			gone[fid] = true
			delete(b.facts, fid)
		}
	}
	for r := range b.refs {
		if gone[r.FactID] {
			delete(b.refs, r)
		}
	}
	for k, l := range b.links {
		if gone[l.FromID] || gone[l.ToID] {
			delete(b.links, k)
		}
	}
}

func (s *memStore) DocumentByItem(_ context.Context, bankID, source, item string) (*memory.Document, error) {
	return with(s, bankID, func(b *memBank) (*memory.Document, error) {
		for _, d := range b.docs {
			if d.Source == source && d.ItemID == item {
				c := *d
				return &c, nil
			}
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no document for %s %s", source, item)
	})
}

func (s *memStore) Chunks(_ context.Context, bankID, documentID string) ([]*memory.Chunk, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Chunk, error) {
		var out []*memory.Chunk
		for _, c := range b.chunks {
			if c.DocumentID == documentID {
				x := *c
				out = append(out, &x)
			}
		}
		slices.SortFunc(out, func(a, b *memory.Chunk) int { return cmp.Compare(a.Index, b.Index) })
		return out, nil
	})
}

func (s *memStore) Facts(_ context.Context, bankID string, ids []string) ([]*memory.Fact, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Fact, error) {
		var out []*memory.Fact
		for _, id := range ids {
			if f, ok := b.facts[id]; ok {
				c := *f
				c.Embedding = nil
				out = append(out, &c)
			}
		}
		return out, nil
	})
}

// candidates returns the bank's facts that pass f, in Seq order.
func (b *memBank) candidates(f memory.Filter) []*memory.Fact {
	var out []*memory.Fact
	for _, x := range b.facts {
		if passes(x, f) {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(a, b *memory.Fact) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// best returns the k best hits, highest score first, ties by Seq.
func best(hits []memory.Hit, k int) []memory.Hit {
	slices.SortStableFunc(hits, func(a, b memory.Hit) int { return cmp.Compare(b.Score, a.Score) })
	return hits[:max(0, min(k, len(hits)))]
}

func (s *memStore) SearchVector(_ context.Context, bankID string, vec []float32, k int, f memory.Filter) ([]memory.Hit, error) {
	return with(s, bankID, func(b *memBank) ([]memory.Hit, error) {
		var hits []memory.Hit
		for _, x := range b.candidates(f) {
			if len(x.Embedding) == len(vec) && len(vec) > 0 {
				hits = append(hits, memory.Hit{ID: x.ID, Score: cosine(vec, x.Embedding)})
			}
		}
		return best(hits, k), nil
	})
}

// words splits text into lower-case stemmed words.
func words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		// A run of CJK characters gives its overlapping pairs (one
		// character: itself); the rest of the word is a word.
		var latin []rune
		rs := []rune(w)
		for i := 0; i < len(rs); {
			if !unicode.In(rs[i], unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) && rs[i] != 'ー' {
				latin = append(latin, rs[i])
				i++
				continue
			}
			if len(latin) > 0 {
				out, latin = append(out, stem(string(latin))), nil
			}
			j := i
			for j < len(rs) && (unicode.In(rs[j], unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || rs[j] == 'ー') {
				j++
			}
			if j-i == 1 {
				out = append(out, string(rs[i]))
			}
			for k := i; k+1 < j; k++ {
				out = append(out, string(rs[k:k+2]))
			}
			i = j
		}
		if len(latin) > 0 {
			out = append(out, stem(string(latin)))
		}
	}
	return out
}

// stem strips one common English suffix and undoubles a final consonant:
// running, runs → run.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "s"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// SearchText scores with BM25 (package internal/bm25) over the body
// (memory.Fact.Body: speaker and text) of every fact of the bank.
func (s *memStore) SearchText(_ context.Context, bankID string, terms []string, k int, f memory.Filter) ([]memory.Hit, error) {
	return with(s, bankID, func(b *memBank) ([]memory.Hit, error) {
		query := map[string]bool{}
		for _, t := range terms {
			for _, w := range words(t) {
				query[w] = true
			}
		}
		tfs := map[string]map[string]int{} // fact id → word → count
		lens := map[string]int{}
		df := map[string]int{}
		var total int
		for id, x := range b.facts {
			tf := map[string]int{}
			for _, w := range words(x.Body()) {
				tf[w]++
				lens[id]++
			}
			for w := range tf {
				df[w]++
			}
			tfs[id] = tf
			total += lens[id]
		}
		n := float64(len(b.facts))
		avg := float64(total) / max(n, 1)
		var hits []memory.Hit
		for _, x := range b.candidates(f) {
			var score float64
			for q := range query {
				tf := float64(tfs[x.ID][q])
				if tf == 0 {
					continue
				}
				score += bm25.Term(bm25.IDF(n, float64(df[q])), tf, bm25.Norm(float64(lens[x.ID]), avg))
			}
			if score > 0 {
				hits = append(hits, memory.Hit{ID: x.ID, Score: score})
			}
		}
		return best(hits, k), nil
	})
}

func (s *memStore) Links(_ context.Context, bankID string, factIDs []string, kinds ...memory.LinkKind) ([]memory.Link, error) {
	return with(s, bankID, func(b *memBank) ([]memory.Link, error) {
		var out []memory.Link
		for _, l := range b.links {
			if slices.Contains(factIDs, l.FromID) && (len(kinds) == 0 || slices.Contains(kinds, l.Kind)) {
				out = append(out, l)
			}
		}
		return out, nil
	})
}

func (s *memStore) EntitiesByName(_ context.Context, bankID string, names []string) ([]*memory.Entity, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Entity, error) {
		var out []*memory.Entity
		for _, x := range b.entities {
			known := append([]string{x.Name}, x.Aliases...)
			if slices.ContainsFunc(known, func(n string) bool { return slices.Contains(names, memory.NormalizeName(n)) }) {
				c := *x
				out = append(out, &c)
			}
		}
		return out, nil
	})
}

func (s *memStore) EntityRefs(_ context.Context, bankID string, factIDs []string) ([]memory.EntityRef, error) {
	return with(s, bankID, func(b *memBank) ([]memory.EntityRef, error) {
		var out []memory.EntityRef
		for r := range b.refs {
			if slices.Contains(factIDs, r.FactID) {
				out = append(out, r)
			}
		}
		return out, nil
	})
}

func (s *memStore) FactsByEntities(_ context.Context, bankID string, entityIDs []string, limit int) (map[string][]string, error) {
	return with(s, bankID, func(b *memBank) (map[string][]string, error) {
		out := map[string][]string{}
		for _, entityID := range entityIDs {
			var fs []*memory.Fact
			for r := range b.refs {
				if f, ok := b.facts[r.FactID]; ok && r.EntityID == entityID && f.Status == memory.StatusActive {
					fs = append(fs, f)
				}
			}
			slices.SortFunc(fs, func(a, b *memory.Fact) int { return cmp.Compare(b.Seq, a.Seq) })
			if ids := factIDs(fs[:max(0, min(limit, len(fs)))]); len(ids) > 0 {
				out[entityID] = ids
			}
		}
		return out, nil
	})
}

func (s *memStore) Entities(_ context.Context, bankID string, ids []string) ([]*memory.Entity, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Entity, error) {
		var out []*memory.Entity
		for _, id := range ids {
			if x, ok := b.entities[id]; ok {
				c := *x
				out = append(out, &c)
			}
		}
		return out, nil
	})
}

func (s *memStore) RecordAccess(_ context.Context, bankID string, factIDs []string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(bankID)
	if err != nil {
		return err
	}
	for _, id := range factIDs {
		if f, ok := b.facts[id]; ok {
			c := *f
			c.AccessCount++
			c.LastAccessed = at
			b.facts[id] = &c
		}
	}
	return nil
}

func (s *memStore) Stats(_ context.Context, bankID string) (*memory.Stats, error) {
	return with(s, bankID, func(b *memBank) (*memory.Stats, error) {
		st := &memory.Stats{Documents: len(b.docs), Chunks: len(b.chunks), Facts: len(b.facts), Entities: len(b.entities), Relations: len(b.relations), Links: len(b.links)}
		for _, f := range b.facts {
			switch f.Status {
			case memory.StatusActive:
				st.Active++
			case memory.StatusSuperseded:
				st.Superseded++
			case memory.StatusArchived:
				st.Archived++
			case memory.StatusQuarantined:
				st.Quarantined++
			}
			if strings.Contains(f.Text, "[REDACTED:") {
				st.Redacted++
			}
		}
		return st, nil
	})
}

func (s *memStore) Close() error { return nil }

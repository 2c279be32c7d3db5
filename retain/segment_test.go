package retain_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/retain"
	"github.com/mnemo-ai/mnemo/store/postgres"
)

// wordExtractor is an extractor that reads each piece of text alone:
// every paragraph (blank-line separated) a chunk, every sentence (ended
// by ". ") a fact, every capitalised word an entity, "in" before one
// making it a place; a paragraph that starts with "|" (a table) a chunk
// without facts. The heuristic extractor also reads names from the
// rest of the input; this one gives the same facts and entities for a
// text whole or cut at paragraphs, so that a document retained in
// segments must be stored exactly as one retained in one piece.
type wordExtractor struct{}

func (wordExtractor) Extract(ctx context.Context, in extract.Input) (*extract.Result, error) {
	res := &extract.Result{}
	for _, p := range strings.Split(in.Text, "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		res.Chunks = append(res.Chunks, p)
		if strings.HasPrefix(p, "|") {
			continue
		}
		for _, s := range strings.SplitAfter(p, ". ") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			f := extract.Fact{Text: s, Chunk: len(res.Chunks) - 1, Kind: memory.KindWorld, Category: memory.CategoryPersonal,
				Confidence: 0.9, Importance: 0.5, Sensitivity: memory.SensitivityOpen, MentionedAt: in.At, OccurredStart: in.At}
			words := strings.Fields(s)
			for i, w := range words {
				w = strings.Trim(w, ".,")
				if w == "" || !unicode.IsUpper([]rune(w)[0]) {
					continue
				}
				typ := memory.EntityThing
				if i > 0 && words[i-1] == "in" {
					typ = memory.EntityPlace
				}
				f.Entities = append(f.Entities, extract.Entity{Name: w, Type: typ, Mentions: 1})
			}
			res.Facts = append(res.Facts, f)
		}
	}
	if len(res.Chunks) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "nothing to remember: text is empty")
	}
	return res, nil
}

// segmentText is a document of n paragraphs naming a few people, places
// and things, so that entity links, co-occurrences and temporal links
// cross every segment boundary.
func segmentText(n int) string {
	people := []string{"Alice", "Bob", "Carla", "David", "Elena"}
	places := []string{"Lisbon", "Porto", "Madrid"}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s met %s in %s. ", people[i%5], people[(i*3+1)%5], places[i%3])
		fmt.Fprintf(&b, "They spoke of Project%d for %d minutes. ", i%7, 10+i)
		fmt.Fprintf(&b, "Then %s went home.\n\n", people[(i+2)%5])
	}
	return b.String()
}

// segmentStores are the stores the segmented retain is checked on:
// SQLite always, PostgreSQL when MNEMO_TEST_POSTGRES is set (each call a
// new schema, dropped at the end).
func segmentStores(t *testing.T) map[string]func(t *testing.T) memory.Store {
	stores := map[string]func(t *testing.T) memory.Store{
		"sqlite": func(t *testing.T) memory.Store { return testutil.OpenStore(t) },
	}
	if base := os.Getenv("MNEMO_TEST_POSTGRES"); base != "" {
		stores["postgres"] = func(t *testing.T) memory.Store {
			s, err := postgres.Open(context.Background(), pgSchemaURL(t, base))
			if err != nil {
				t.Fatalf("postgres.Open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
	return stores
}

// pgSchemaURL creates a schema of its own on the database at base and
// returns a URL whose connections use it; the schema is dropped when the
// test ends.
func pgSchemaURL(t *testing.T, base string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	u, err := postgres.CreateSchema(context.Background(), base, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := postgres.DropSchema(context.Background(), base, schema); err != nil {
			t.Error(err)
		}
	})
	return u
}

// segmentPipeline is a pipeline over st with bank "b", the word
// extractor, the hash embedder and a fixed clock, retaining text longer
// than segment bytes in segments.
func segmentPipeline(t *testing.T, st memory.Store, segment int) *retain.Pipeline {
	t.Helper()
	if _, err := st.Bank(context.Background(), "b"); memory.ErrorCode(err) == memory.ENOTFOUND {
		testutil.CreateBank(t, st, "b")
	}
	p := retain.New(st, hashembed.New(hashembed.DefaultDimension), wordExtractor{})
	clock := testutil.NewClock(monday)
	p.Now = clock.Now
	p.SegmentBytes = segment
	return p
}

// exportLines is bank b of st as export records, one JSON line each,
// sorted: everything the bank holds, ids and counts included.
func exportLines(t *testing.T, st memory.Store) []string {
	t.Helper()
	var lines []string
	err := st.(memory.Exporter).Export(context.Background(), "b", func(r *memory.ExportRecord) error {
		if r.Kind == memory.RecordHeader || r.Kind == memory.RecordTrailer {
			return nil
		}
		b, err := json.Marshal(r)
		lines = append(lines, string(b))
		return err
	})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	slices.Sort(lines)
	return lines
}

// sameLines fails the test when got and want differ, showing the first
// difference.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("%s: %d records, want %d; first difference:\ngot  %s\nwant %s", what, len(got), len(want), got[i], want[i])
		}
	}
	t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
}

// A document retained in segments (each its own transaction) is stored
// exactly as the same document retained in one piece: document, chunk
// and fact ids, links across segment boundaries, refs, entity counts and
// co-occurrences, and the same result counts.
func TestPipeline_Retain_SegmentsSameAsOnePiece(t *testing.T) {
	text := segmentText(60)
	for name, open := range segmentStores(t) {
		t.Run(name, func(t *testing.T) {
			req := memory.RetainRequest{BankID: "b", Text: text, Source: memory.SourceNote, ItemID: "big"}
			one := open(t)
			wantRes, err := segmentPipeline(t, one, 1<<30).Retain(context.Background(), req)
			if err != nil {
				t.Fatalf("Retain in one piece: %v", err)
			}
			want := exportLines(t, one)

			for _, size := range []int{100, 333, 1000} {
				st := open(t)
				writes := &countingStore{Store: st}
				p := segmentPipeline(t, writes, size)
				res, err := p.Retain(context.Background(), req)
				if err != nil {
					t.Fatalf("Retain in segments of %d bytes: %v", size, err)
				}
				if got := writes.writes(); got < len(text)/size {
					t.Errorf("segments of %d bytes: %d writes, want at least %d", size, got, len(text)/size)
				}
				if res.DocumentID != wantRes.DocumentID || res.Facts != wantRes.Facts || res.Entities != wantRes.Entities || res.Links != wantRes.Links || res.Duplicate || res.Replaced {
					t.Errorf("segments of %d bytes: got result %+v, want %+v (without outcomes)", size, res, wantRes)
				}
				sameLines(t, fmt.Sprintf("segments of %d bytes", size), exportLines(t, st), want)
				// The same item and content again is a duplicate.
				if again, err := p.Retain(context.Background(), req); err != nil || !again.Duplicate {
					t.Errorf("Retain again: got %+v, %v; want a duplicate", again, err)
				}
			}
		})
	}
}

// countingStore counts the writes it passes on; it fails the write after
// failAfter writes when failAfter is set, and cancels cancel (when set)
// instead of failing.
type countingStore struct {
	memory.Store
	failAfter int
	cancel    context.CancelFunc

	mu sync.Mutex
	n  int
}

var errCut = errors.New("cut")

func (s *countingStore) Write(ctx context.Context, w *memory.WriteBatch) (*memory.WriteResult, error) {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	if s.failAfter > 0 && n > s.failAfter {
		if s.cancel != nil {
			s.cancel()
			return nil, context.Canceled
		}
		return nil, errCut
	}
	return s.Store.Write(ctx, w)
}

func (s *countingStore) writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// retainUninterrupted retains req in 300-byte segments into a new store
// of open's and returns the store, the result, its export lines and the
// writes it took.
func retainUninterrupted(t *testing.T, open func(t *testing.T) memory.Store, req memory.RetainRequest) (memory.Store, *memory.RetainResult, []string, int) {
	t.Helper()
	whole := open(t)
	counted := &countingStore{Store: whole}
	res, err := segmentPipeline(t, counted, 300).Retain(context.Background(), req)
	if err != nil {
		t.Fatalf("Retain uninterrupted: %v", err)
	}
	return whole, res, exportLines(t, whole), counted.writes()
}

// A retain in segments that stops halfway (canceled, or a write failing,
// as a process killed between two commits) leaves the segments it
// committed, under a document whose content hash is no item's (so no
// retain takes it for a duplicate); the same retain again continues
// from there and ends exactly as an uninterrupted one: the same export,
// the same result. Another content of the item replaces the leftover.
func TestPipeline_Retain_SegmentsResume(t *testing.T) {
	text := segmentText(60)
	req := memory.RetainRequest{BankID: "b", Text: text, Source: memory.SourceNote, ItemID: "big"}
	for name, open := range segmentStores(t) {
		t.Run(name, func(t *testing.T) {
			whole, wantRes, want, writes := retainUninterrupted(t, open, req)
			// The last write completes the document: cut before it, every
			// segment is stored and the document is still partial.
			segments := writes - 1
			if segments <= 9 {
				t.Fatalf("uninterrupted: %d segments, want more than 9", segments)
			}

			for _, cancel := range []bool{false, true} {
				for _, cut := range []int{1, 4, 9, segments} {
					st := open(t)
					ctx, stop := context.WithCancel(context.Background())
					cs := &countingStore{Store: st, failAfter: cut}
					if cancel {
						cs.cancel = stop
					}
					if _, err := segmentPipeline(t, cs, 300).Retain(ctx, req); err == nil {
						t.Fatalf("cut after %d writes (cancel %v): Retain succeeded", cut, cancel)
					}
					stop()
					left := testutil.Stats(t, st, "b")
					if all := cut == segments; left.Documents != 1 || left.Facts == 0 || left.Facts > wantRes.Facts || (left.Facts == wantRes.Facts) != all {
						t.Errorf("cut after %d writes: left %d documents, %d facts; want 1 and some of %d (all: %v)", cut, left.Documents, left.Facts, wantRes.Facts, all)
					}
					d, err := st.DocumentByItem(context.Background(), "b", memory.SourceNote, "big")
					if err != nil {
						t.Fatalf("DocumentByItem: %v", err)
					}
					if final := wantRes.DocumentID; d.ID != final {
						t.Errorf("cut after %d writes: document %s, want %s", cut, d.ID, final)
					}
					wantHash := exportDocumentHash(t, whole)
					if d.ContentHash == wantHash || d.Content != "" {
						t.Errorf("cut after %d writes: the leftover has the item's content hash or %d bytes of content; want neither", cut, len(d.Content))
					}

					res, err := segmentPipeline(t, st, 300).Retain(context.Background(), req)
					if err != nil {
						t.Fatalf("Retain again after a cut after %d writes: %v", cut, err)
					}
					if res.Duplicate || res.Facts != wantRes.Facts || res.Links != wantRes.Links || res.Entities != wantRes.Entities {
						t.Errorf("Retain again after a cut after %d writes: got %+v, want %+v", cut, res, wantRes)
					}
					sameLines(t, fmt.Sprintf("resumed after %d writes (cancel %v)", cut, cancel), exportLines(t, st), want)
				}
			}

			// A leftover replaced by other content of the item.
			st := open(t)
			cs := &countingStore{Store: st, failAfter: 3}
			if _, err := segmentPipeline(t, cs, 300).Retain(context.Background(), req); !errors.Is(err, errCut) {
				t.Fatalf("cut Retain: got %v, want the cut", err)
			}
			other := req
			other.Text = segmentText(5)
			res, err := segmentPipeline(t, st, 300).Retain(context.Background(), other)
			if err != nil {
				t.Fatalf("Retain of other content: %v", err)
			}
			if !res.Replaced || res.Duplicate {
				t.Errorf("Retain of other content over a leftover: got %+v, want Replaced", res)
			}
			if got := testutil.Stats(t, st, "b"); got.Active != res.Facts {
				t.Errorf("after other content: %d active facts, want %d (the leftover's are not)", got.Active, res.Facts)
			}
		})
	}
}

// A document with segments that hold no fact (a long table between
// paragraphs) resumes after a cut before, inside and after them to
// exactly what an uninterrupted retain stores: a segment without facts is
// known committed by its last chunk.
func TestPipeline_Retain_SegmentsResumeFactless(t *testing.T) {
	var table strings.Builder
	for i := range 40 {
		fmt.Fprintf(&table, "| row %d | %d | %d |\n", i, i*i, i*7)
	}
	text := segmentText(6) + table.String() + "\n" + segmentText(6)
	req := memory.RetainRequest{BankID: "b", Text: text, Source: memory.SourceNote, ItemID: "big"}
	for name, open := range segmentStores(t) {
		t.Run(name, func(t *testing.T) {
			_, wantRes, want, writes := retainUninterrupted(t, open, req)
			if writes < 8 {
				t.Fatalf("uninterrupted: %d writes, want at least 8", writes)
			}
			factless := 0
			for _, seg := range retain.SplitSegments(text, 300) {
				if strings.HasPrefix(strings.TrimSpace(seg), "|") && !strings.Contains(seg, ". ") {
					factless++
				}
			}
			if factless < 2 {
				t.Fatalf("%d segments without facts, want at least 2", factless)
			}
			for cut := 1; cut < writes; cut++ {
				st := open(t)
				if _, err := segmentPipeline(t, &countingStore{Store: st, failAfter: cut}, 300).Retain(context.Background(), req); !errors.Is(err, errCut) {
					t.Fatalf("cut after %d writes: got %v, want the cut", cut, err)
				}
				res, err := segmentPipeline(t, st, 300).Retain(context.Background(), req)
				if err != nil {
					t.Fatalf("Retain again after a cut after %d writes: %v", cut, err)
				}
				if res.Facts != wantRes.Facts || res.Links != wantRes.Links {
					t.Errorf("Retain again after a cut after %d writes: got %+v, want %+v", cut, res, wantRes)
				}
				sameLines(t, fmt.Sprintf("resumed after %d writes", cut), exportLines(t, st), want)
			}
		})
	}
}

// exportDocumentHash is the content hash of bank b's one document.
func exportDocumentHash(t *testing.T, st memory.Store) string {
	t.Helper()
	var hash string
	err := st.(memory.Exporter).Export(context.Background(), "b", func(r *memory.ExportRecord) error {
		if r.Kind == memory.RecordDocument {
			hash = r.Document.ContentHash
		}
		return nil
	})
	if err != nil || hash == "" {
		t.Fatalf("Export: %v (hash %q)", err, hash)
	}
	return hash
}

// RetainMany retains a large document among small items in segments, in
// its place, as Retain would, and the small ones as before.
func TestPipeline_RetainMany_Segments(t *testing.T) {
	big := segmentText(40)
	reqs := []memory.RetainRequest{
		{BankID: "b", Text: "Alice met Bob in Lisbon. ", ItemID: "small-1"},
		{BankID: "b", Text: big, ItemID: "big"},
		{BankID: "b", Text: "Carla met David in Porto. ", ItemID: "small-2"},
		{BankID: "b", Text: big, ItemID: "big"}, // a duplicate of the one before
	}
	one := testutil.OpenStore(t)
	p := segmentPipeline(t, one, 1<<30)
	for _, r := range reqs {
		if _, err := p.Retain(context.Background(), r); err != nil {
			t.Fatalf("Retain %s: %v", r.ItemID, err)
		}
	}
	want := exportLines(t, one)

	st := testutil.OpenStore(t)
	results, errs := segmentPipeline(t, st, 200).RetainMany(context.Background(), reqs, nil)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	if got := []bool{results[0].Duplicate, results[1].Duplicate, results[2].Duplicate, results[3].Duplicate}; !slices.Equal(got, []bool{false, false, false, true}) {
		t.Errorf("duplicates: got %v, want only the last", got)
	}
	sameLines(t, "RetainMany with segments", exportLines(t, st), want)
}

// The heuristic extractor in segments keeps every sentence of the text,
// in order, with the same ids as in one piece, and the temporal chain
// unbroken across segments.
func TestPipeline_Retain_SegmentsHeuristic(t *testing.T) {
	text := segmentText(50)
	var all [2][]*memory.Fact
	var res [2]*memory.RetainResult
	for i, size := range []int{1 << 30, 256} {
		st := testutil.OpenStore(t)
		testutil.CreateBank(t, st, "b")
		ex := extract.NewHeuristic()
		clock := testutil.NewClock(monday)
		ex.Now = clock.Now
		p := retain.New(st, hashembed.New(hashembed.DefaultDimension), ex)
		p.Now, p.SegmentBytes = clock.Now, size
		r, err := p.Retain(context.Background(), memory.RetainRequest{BankID: "b", Text: text})
		if err != nil {
			t.Fatalf("Retain (segments of %d bytes): %v", size, err)
		}
		res[i], all[i] = r, facts(t, st, "b")
		links, err := st.Links(context.Background(), "b", factIDs(all[i]), memory.LinkTemporal)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(links), 2*(len(all[i])-1); got != want {
			t.Errorf("segments of %d bytes: %d temporal links, want %d", size, got, want)
		}
	}
	if !slices.Equal(factIDs(all[1]), factIDs(all[0])) || !slices.Equal(texts(all[1]), texts(all[0])) {
		t.Errorf("facts in segments differ from one piece: %d vs %d", len(all[1]), len(all[0]))
	}
	if res[1].DocumentID != res[0].DocumentID {
		t.Errorf("document in segments %s, in one piece %s", res[1].DocumentID, res[0].DocumentID)
	}
}

// A plain-text document may be up to memory.MaxDocumentBytes long (it is
// retained in segments); messages, and text on the LLM path, stay within
// memory.MaxContentBytes.
func TestPipeline_Retain_SegmentsLimits(t *testing.T) {
	st := testutil.OpenStore(t)
	p := segmentPipeline(t, st, 0)
	huge := strings.Repeat("word ", memory.MaxDocumentBytes/5+1)
	_, err := p.Retain(context.Background(), memory.RetainRequest{BankID: "b", Text: huge})
	if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(err.Error(), "limit") {
		t.Errorf("Retain of %d bytes: got %v, want EINVALID over the limit", len(huge), err)
	}
	msgs := []memory.Message{{Speaker: "a", Text: huge[:memory.MaxContentBytes+1]}}
	if _, err := p.Retain(context.Background(), memory.RetainRequest{BankID: "b", Messages: msgs}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("Retain of messages over MaxContentBytes: got %v, want EINVALID", err)
	}
	if got := testutil.Stats(t, st, "b"); got.Documents != 0 {
		t.Errorf("refused retains stored %d documents", got.Documents)
	}
}

package retain_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// TestPipeline_RetainMany_GroupBytes checks that RetainMany ends a group
// (one commit, one progress report) once its items hold
// DefaultGroupBytes of text, not only after DefaultGroup items, and that
// every item still lands, in order.
func TestPipeline_RetainMany_GroupBytes(t *testing.T) {
	e := newEnv(t)
	// Three items of 0.6 × DefaultGroupBytes: the first two make a group.
	line := "We walked along the quiet river and talked about the garden.\n"
	big := strings.Repeat(line, retain.DefaultGroupBytes*6/10/len(line))
	var reqs []memory.RetainRequest
	for i := range 3 {
		reqs = append(reqs, memory.RetainRequest{BankID: "b", ItemID: fmt.Sprint("big", i), Messages: []memory.Message{{Speaker: "Mel", Text: fmt.Sprint(i, " ", big)}}})
	}
	var progress []int
	res, errs := e.p.RetainMany(e.ctx, reqs, func(done int) { progress = append(progress, done) })
	for i, err := range errs {
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if res[i] == nil || res[i].Facts != 1 {
			t.Fatalf("item %d: result %+v, want one fact", i, res[i])
		}
	}
	if want := []int{2, 3}; !slices.Equal(progress, want) {
		t.Errorf("progress reports %v, want %v (a group ends at %d bytes of text)", progress, want, retain.DefaultGroupBytes)
	}
	if got := len(facts(t, e.store, "b")); got != 3 {
		t.Errorf("%d facts stored, want 3", got)
	}
}

// TestPipeline_RetainMany_Redact checks that RetainMany passes every item
// through Redact before preparing it: what is stored is the redacted
// text, and the caller's items are redacted in place.
func TestPipeline_RetainMany_Redact(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	e.p.Redact = func(_ context.Context, req *memory.RetainRequest) {
		calls.Add(1)
		req.Text = strings.ReplaceAll(req.Text, "hunter2", "[hidden]")
	}
	reqs := []memory.RetainRequest{
		{BankID: "b", ItemID: "one", Text: "Mel said the door code is hunter2 and laughed."},
		{BankID: "b", ItemID: "two", Text: "Mel planted tomatoes in the garden on Sunday."},
	}
	_, errs := e.p.RetainMany(e.ctx, reqs, nil)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	if got := calls.Load(); got != int32(len(reqs)) {
		t.Errorf("Redact called %d times, want %d", got, len(reqs))
	}
	if strings.Contains(reqs[0].Text, "hunter2") {
		t.Errorf("the caller's item still reads %q", reqs[0].Text)
	}
	for _, f := range facts(t, e.store, "b") {
		if strings.Contains(f.Text, "hunter2") {
			t.Errorf("stored fact %q holds what Redact took out", f.Text)
		}
	}
	if !slices.ContainsFunc(facts(t, e.store, "b"), func(f *memory.Fact) bool { return strings.Contains(f.Text, "[hidden]") }) {
		t.Error("no stored fact holds the redacted text")
	}
}

// TestPipeline_RetainMany_TailGroups checks that the last groups of
// RetainMany halve: a group also ends once it holds as much text as the
// items after it, so the last write is short.
func TestPipeline_RetainMany_TailGroups(t *testing.T) {
	e := newEnv(t)
	// Eight items of DefaultGroupBytes/8: one group before, now 4, 2, 1, 1.
	line := "We walked along the quiet river and talked about the garden.\n"
	big := strings.Repeat(line, retain.DefaultGroupBytes/8/len(line))
	var reqs []memory.RetainRequest
	for i := range 8 {
		reqs = append(reqs, memory.RetainRequest{BankID: "b", ItemID: fmt.Sprint("big", i), Messages: []memory.Message{{Speaker: "Mel", Text: fmt.Sprint(i, " ", big)}}})
	}
	var progress []int
	_, errs := e.p.RetainMany(e.ctx, reqs, func(done int) { progress = append(progress, done) })
	for i, err := range errs {
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	if want := []int{4, 6, 7, 8}; !slices.Equal(progress, want) {
		t.Errorf("progress reports %v, want %v", progress, want)
	}
	if got := len(facts(t, e.store, "b")); got != len(reqs) {
		t.Errorf("%d facts stored, want %d", got, len(reqs))
	}
}

// orderStore logs the order of the embedder records and writes it sees.
type orderStore struct {
	*sqlite.Store
	mu  sync.Mutex
	log []string
}

func (s *orderStore) SetBankEmbedder(ctx context.Context, bank, name string, dim int) error {
	s.mu.Lock()
	s.log = append(s.log, "embedder "+bank)
	s.mu.Unlock()
	return s.Store.SetBankEmbedder(ctx, bank, name, dim)
}

func (s *orderStore) WriteMany(ctx context.Context, ws []*memory.WriteBatch) []memory.WriteOutcome {
	var banks []string
	for _, w := range ws {
		banks = append(banks, w.BankID)
	}
	s.mu.Lock()
	s.log = append(s.log, "write "+strings.Join(banks, ","))
	s.mu.Unlock()
	return s.Store.WriteMany(ctx, ws)
}

// orderExtractor logs each extraction in its store's log, with the bank
// the text names last ("… for bank c.").
type orderExtractor struct {
	retain.Extractor
	s *orderStore
}

func (x *orderExtractor) Extract(ctx context.Context, in extract.Input) (*extract.Result, error) {
	text := in.Text
	for _, m := range in.Messages {
		text += m.Text
	}
	if k := strings.Index(text, " for bank "); k >= 0 {
		bank, _, _ := strings.Cut(text[k+len(" for bank "):], ".")
		x.s.mu.Lock()
		x.s.log = append(x.s.log, "extract "+bank)
		x.s.mu.Unlock()
	}
	return x.Extractor.Extract(ctx, in)
}

// TestPipeline_RetainMany_EmbedderFirst checks that RetainMany records
// each bank's embedder once, as its first item is read, before the
// bank's first write (so that no item being prepared waits for a group's
// transaction to do it), and that a bank that cannot take it still fails
// its own items only.
func TestPipeline_RetainMany_EmbedderFirst(t *testing.T) {
	e := newEnv(t)
	testutil.CreateBank(t, e.store, "c")
	st := &orderStore{Store: e.store}
	e.p.Store = st
	e.p.Extractor = &orderExtractor{Extractor: e.p.Extractor, s: st}
	// One preparer, items of over half a group: bank c's first item
	// starts only once the first group (two items) is written.
	defer func(n int) { retain.DefaultWorkers = n }(retain.DefaultWorkers)
	retain.DefaultWorkers = 1
	line := "We walked along the quiet river and talked about the garden.\n"
	big := strings.Repeat(line, retain.DefaultGroupBytes*55/100/len(line))
	var reqs []memory.RetainRequest
	for i, bank := range []string{"b", "b", "b", "c", "nobank", "c"} {
		text := fmt.Sprint("Mel planted ", i, " tomatoes in the garden for bank ", bank, ".")
		if bank == "b" {
			text += "\n" + big
		}
		reqs = append(reqs, memory.RetainRequest{BankID: bank, ItemID: fmt.Sprint("i", i), Messages: []memory.Message{{Speaker: "Mel", Text: text}}})
	}
	_, errs := e.p.RetainMany(e.ctx, reqs, nil)
	for i, err := range errs {
		if want := reqs[i].BankID == "nobank"; (err != nil) != want {
			t.Errorf("item %d (bank %s): error %v", i, reqs[i].BankID, err)
		}
	}
	for _, bank := range []string{"b", "c"} {
		first := slices.IndexFunc(st.log, func(l string) bool {
			return strings.HasPrefix(l, "write ") && slices.Contains(strings.Split(l[len("write "):], ","), bank)
		})
		k := slices.Index(st.log, "embedder "+bank)
		prepared := slices.Index(st.log, "extract "+bank)
		if first < 0 || k < 0 || k > first || k > prepared || slices.Index(st.log[k+1:], "embedder "+bank) >= 0 {
			t.Errorf("bank %s's embedder recorded at %d, its first item prepared at %d, its first write at %d: %q", bank, k, prepared, first, st.log)
		}
	}
}

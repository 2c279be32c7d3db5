package mnemo_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/recall"
)

var monday = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

// engine is an Engine under test that remembers whether the test closed
// it, so the cleanup closes it only once.
type engine struct {
	*mnemo.Engine
	path   string
	closed bool
}

func (e *engine) Close() error {
	e.closed = true
	return e.Engine.Close()
}

// open opens an engine on a new database file with a fixed clock; it is
// closed when the test ends unless the test closed it.
func open(t *testing.T, cfg mnemo.Config) *engine {
	t.Helper()
	if cfg.DB == "" && cfg.Store == nil {
		cfg.DB = filepath.Join(t.TempDir(), "mnemo.db")
	}
	if cfg.Now == nil {
		cfg.Now = testutil.NewClock(monday.Add(time.Hour)).Now
	}
	eng, err := mnemo.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	e := &engine{Engine: eng, path: cfg.DB}
	t.Cleanup(func() {
		if !e.closed {
			e.Engine.Close()
		}
	})
	return e
}

func bankNames(t *testing.T, eng interface {
	Banks(context.Context) ([]*memory.Bank, error)
}) []string {
	t.Helper()
	bs, err := eng.Banks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	t.Run("DB", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nested", "dir", "memory.db")
		eng, err := mnemo.Open(ctx, mnemo.Config{DB: path})
		if err != nil {
			t.Fatalf("Open(%s): %v", path, err)
		}
		if _, err := eng.CreateBank(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if err := eng.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		// The file holds what the engine wrote.
		s := testutil.OpenStoreAt(t, path)
		if _, err := s.Bank(ctx, "b"); err != nil {
			t.Errorf("bank after reopening the file: %v", err)
		}
	})
	t.Run("Store", func(t *testing.T) {
		st := testutil.OpenStore(t)
		testutil.CreateBank(t, st, "given")
		eng, err := mnemo.Open(ctx, mnemo.Config{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		if mnemo.StoreOf(eng) != st {
			t.Errorf("the engine does not use the configured store")
		}
		if got := bankNames(t, eng); !slices.Equal(got, []string{"given"}) {
			t.Errorf("Banks = %q, want [given]", got)
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
		// The engine closed the store.
		if _, err := st.Banks(ctx); err == nil {
			t.Errorf("store still usable after the engine closed")
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		eng, err := mnemo.Open(ctx, mnemo.Config{})
		if got := memory.ErrorCode(err); got != memory.EINVALID || eng != nil {
			t.Errorf("Open(Config{}) = %v, %v; want nil, EINVALID", eng, err)
		}
		_, err = mnemo.Open(ctx, mnemo.Config{DB: ":memory:"})
		if got := memory.ErrorCode(err); got != memory.EINVALID {
			t.Errorf("Open(:memory:): err = %v, want EINVALID", err)
		}
	})
}

func TestEngine_Retain_DefaultBank(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	if got := bankNames(t, eng); len(got) != 0 {
		t.Fatalf("new engine has banks %q", got)
	}
	res, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon.", At: monday})
	if err != nil {
		t.Fatalf("Retain without a bank: %v", err)
	}
	if res.Facts != 1 {
		t.Errorf("Facts = %d, want 1", res.Facts)
	}
	if got := bankNames(t, eng); !slices.Equal(got, []string{memory.DefaultBank}) {
		t.Errorf("Banks = %q, want [%s]", got, memory.DefaultBank)
	}
	b, err := eng.Bank(ctx, memory.DefaultBank)
	if err != nil {
		t.Fatal(err)
	}
	if want := monday.Add(time.Hour); !b.CreatedAt.Equal(want) {
		t.Errorf("default bank CreatedAt = %v, want the clock's %v", b.CreatedAt, want)
	}
	// Named explicitly, the existing default bank is reused.
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: memory.DefaultBank, Text: "Bob plays the cello.", At: monday}); err != nil {
		t.Fatal(err)
	}
	st, err := eng.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 2 || st.Facts != 2 {
		t.Errorf("Stats of the default bank = %+v, want 2 documents and 2 facts", st)
	}
	rec, err := eng.Recall(ctx, memory.Query{Text: "Where did Alice move?", Now: monday})
	if err != nil {
		t.Fatalf("Recall without a bank: %v", err)
	}
	if len(rec.Results) == 0 || rec.Results[0].Fact.Text != "Alice moved to Lisbon." {
		t.Errorf("Recall from the default bank: %+v", rec.Results)
	}
}

func TestEngine_Retain_ErrNotFound(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	_, err := eng.Retain(ctx, memory.RetainRequest{BankID: "work", Text: "Alice moved to Lisbon."})
	if got := memory.ErrorCode(err); got != memory.ENOTFOUND {
		t.Errorf("Retain into an unknown bank: err = %v, want ENOTFOUND", err)
	}
	if got := bankNames(t, eng); len(got) != 0 {
		t.Errorf("Retain into an unknown bank created %q", got)
	}
	if _, err := eng.Recall(ctx, memory.Query{BankID: "work", Text: "Alice"}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Recall from an unknown bank: err = %v, want ENOTFOUND", err)
	}
	if _, err := eng.Stats(ctx, "work"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Stats of an unknown bank: err = %v, want ENOTFOUND", err)
	}
	// Recall from the default bank does not create it.
	if _, err := eng.Recall(ctx, memory.Query{Text: "Alice"}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Recall from a default bank never written: err = %v, want ENOTFOUND", err)
	}
}

func TestEngine_Banks(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	for _, name := range []string{"zeta", "alpha", "user:42"} {
		b, err := eng.CreateBank(ctx, name)
		if err != nil {
			t.Fatalf("CreateBank(%q): %v", name, err)
		}
		if b.ID != name || b.Name != name {
			t.Errorf("CreateBank(%q) = %+v", name, b)
		}
	}
	if got, want := bankNames(t, eng), []string{"alpha", "user:42", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("Banks = %q, want %q", got, want)
	}
	if _, err := eng.CreateBank(ctx, "alpha"); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("CreateBank of an existing bank: err = %v, want ECONFLICT", err)
	}
	for _, bad := range []string{"", "two words", "-x", strings.Repeat("x", 129)} {
		if _, err := eng.CreateBank(ctx, bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("CreateBank(%q): err = %v, want EINVALID", bad, err)
		}
	}
	if _, err := eng.Bank(ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Bank(nope): err = %v, want ENOTFOUND", err)
	}

	// Deleting a bank deletes what it holds; the other banks keep theirs.
	for _, bank := range []string{"alpha", "zeta"} {
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: bank, Text: "Alice moved to Lisbon. Bob plays the cello.", At: monday}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.DeleteBank(ctx, "alpha"); err != nil {
		t.Fatalf("DeleteBank: %v", err)
	}
	if got, want := bankNames(t, eng), []string{"user:42", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("Banks after delete = %q, want %q", got, want)
	}
	if err := eng.DeleteBank(ctx, "alpha"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("DeleteBank of a deleted bank: err = %v, want ENOTFOUND", err)
	}
	if _, err := eng.CreateBank(ctx, "alpha"); err != nil {
		t.Fatal(err)
	}
	if st, err := eng.Stats(ctx, "alpha"); err != nil || *st != (memory.Stats{}) {
		t.Errorf("Stats of a re-created bank = %+v, %v; want zero", st, err)
	}
	rec, err := eng.Recall(ctx, memory.Query{BankID: "alpha", Text: "Alice"})
	if err != nil || len(rec.Results) != 0 {
		t.Errorf("Recall from a re-created bank = %v, %v; want nothing", rec, err)
	}
	if st, err := eng.Stats(ctx, "zeta"); err != nil || st.Facts != 2 {
		t.Errorf("Stats of the other bank = %+v, %v; want 2 facts", st, err)
	}
}

func TestEngine_Import(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	reqs := []memory.RetainRequest{
		{BankID: "alice", ItemID: "a1", Text: "Alice moved to Lisbon.", At: monday},
		{BankID: "bob", ItemID: "b1", Messages: []memory.Message{{Speaker: "Bob", Text: "I play the cello."}, {Speaker: "Bob", Text: "I adopted a dog."}}, At: monday},
		{BankID: "alice", ItemID: "a-bad", Text: "   ", At: monday},
		{ItemID: "d1", Text: "The default bank gets this.", At: monday},
		{BankID: "alice", ItemID: "a2", Text: "Alice works at Acme.", At: monday},
	}
	var progress [][2]int
	rep, err := eng.Import(ctx, reqs, mnemo.ImportOptions{CreateBanks: true, Progress: func(done, total int) {
		progress = append(progress, [2]int{done, total})
	}})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if rep.Items != 5 || rep.Retained != 4 || rep.Duplicates != 0 || rep.Facts != 5 {
		t.Errorf("report = %+v, want 5 items, 4 retained, 5 facts", rep)
	}
	if len(rep.Failed) != 1 {
		t.Fatalf("Failed = %+v, want the blank item", rep.Failed)
	}
	if f := rep.Failed[0]; f.Bank != "alice" || f.Item != "a-bad" || !strings.Contains(f.Error, "nothing to remember") {
		t.Errorf("Failed[0] = %+v, want alice/a-bad: nothing to remember", f)
	}
	// Progress counts up to the total, which it reaches at the end.
	if len(progress) == 0 || progress[len(progress)-1] != [2]int{5, 5} {
		t.Errorf("progress = %v, want it to end at 5 of 5", progress)
	}
	for i, p := range progress {
		if p[1] != 5 || p[0] < 1 || p[0] > 5 || (i > 0 && p[0] <= progress[i-1][0]) {
			t.Errorf("progress = %v: not increasing counts of 5", progress)
			break
		}
	}
	if got := bankNames(t, eng); !slices.Equal(got, []string{"alice", "bob", memory.DefaultBank}) {
		t.Errorf("Banks = %q, want [alice bob default]", got)
	}
	for bank, facts := range map[string]int{"alice": 2, "bob": 2, memory.DefaultBank: 1} {
		st, err := eng.Stats(ctx, bank)
		if err != nil {
			t.Fatal(err)
		}
		if st.Facts != facts {
			t.Errorf("bank %s holds %d facts, want %d", bank, st.Facts, facts)
		}
	}

	// Again: the items that landed are duplicates, the bad one fails again.
	rep, err = eng.Import(ctx, reqs, mnemo.ImportOptions{CreateBanks: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Retained != 0 || rep.Duplicates != 4 || rep.Facts != 0 || len(rep.Failed) != 1 {
		t.Errorf("second import = %+v, want 4 duplicates and 1 failure", rep)
	}
}

// Without CreateBanks, a request naming an unknown bank fails the import
// before anything is written.
func TestEngine_Import_UnknownBank(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	if _, err := eng.CreateBank(ctx, "known"); err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Import(ctx, []memory.RetainRequest{
		{BankID: "known", ItemID: "k1", Text: "Kept words."},
		{BankID: "unknown", ItemID: "u1", Text: "Lost words."},
	}, mnemo.ImportOptions{})
	if got := memory.ErrorCode(err); got != memory.ENOTFOUND {
		t.Fatalf("Import into an unknown bank: %+v, %v; want ENOTFOUND", rep, err)
	}
	if rep == nil || rep.Retained != 0 {
		t.Errorf("report = %+v, want nothing retained", rep)
	}
	if st, err := eng.Stats(ctx, "known"); err != nil || st.Documents != 0 {
		t.Errorf("known bank after a refused import: %+v, %v; want empty", st, err)
	}
	if got := bankNames(t, eng); !slices.Equal(got, []string{"known"}) {
		t.Errorf("Banks = %q, want [known]: without CreateBanks no bank is made", got)
	}
}

// An item naming an invalid bank fails alone, like any other bad item.
func TestEngine_Import_InvalidBank(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{})
	rep, err := eng.Import(ctx, []memory.RetainRequest{
		{BankID: "not a bank", ItemID: "x1", Text: "Lost words."},
		{BankID: "fine", ItemID: "f1", Text: "Kept words."},
	}, mnemo.ImportOptions{CreateBanks: true})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if rep.Retained != 1 || len(rep.Failed) != 1 || rep.Failed[0].Item != "x1" {
		t.Errorf("report = %+v, want f1 retained and x1 failed", rep)
	}
}

func TestEngine_Import_Canceled(t *testing.T) {
	eng := open(t, mnemo.Config{})
	if _, err := eng.CreateBank(context.Background(), "b"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := eng.Import(ctx, []memory.RetainRequest{
		{BankID: "b", ItemID: "1", Text: "First words."},
		{BankID: "b", ItemID: "2", Text: "Second words."},
	}, mnemo.ImportOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Import with a canceled context: err = %v, want context.Canceled", err)
	}
	if rep == nil || rep.Retained != 0 || rep.Items != 2 {
		t.Errorf("report = %+v, want 2 items, none retained", rep)
	}
	st, err := eng.Stats(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 0 {
		t.Errorf("%d documents after a canceled import, want 0", st.Documents)
	}
}

// Recall records the access of what it returned; Close writes it.
func TestEngine_Recall_RecordsAccess(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(monday.Add(time.Hour))
	eng := open(t, mnemo.Config{Now: clock.Now, AccessFlush: time.Hour})
	if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon. Bob plays the cello. Carol paints.", At: monday}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	rec, err := eng.Recall(ctx, memory.Query{Text: "Where did Alice move?", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Results) != 2 {
		t.Fatalf("%d results, want 2", len(rec.Results))
	}
	// The reply is not held up by the write: the results carry the state
	// before this access.
	for _, r := range rec.Results {
		if r.Fact.AccessCount != 0 {
			t.Errorf("result %q AccessCount = %d in the reply, want 0", r.Fact.Text, r.Fact.AccessCount)
		}
	}
	returned := []string{rec.Results[0].Fact.ID, rec.Results[1].Fact.ID}
	accessed := clock.Now()
	clock.Advance(time.Minute)
	if err := eng.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	st := testutil.OpenStoreAt(t, eng.path)
	eng2, err := mnemo.Open(ctx, mnemo.Config{Store: st, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	fs, err := mnemo.StoreOf(eng2).Facts(ctx, memory.DefaultBank, returned)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("%d facts after reopening, want 2", len(fs))
	}
	for _, f := range fs {
		if f.AccessCount != 1 {
			t.Errorf("fact %q AccessCount = %d, want 1", f.Text, f.AccessCount)
		}
		if f.LastAccessed.IsZero() || f.LastAccessed.Before(accessed) {
			t.Errorf("fact %q LastAccessed = %v, want at or after %v", f.Text, f.LastAccessed, accessed)
		}
	}
	// The fact not returned was not accessed.
	res, err := eng2.Recall(ctx, memory.Query{Text: "Carol paints", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if !slices.Contains(returned, r.Fact.ID) && r.Fact.AccessCount != 0 {
			t.Errorf("fact %q never returned has AccessCount %d", r.Fact.Text, r.Fact.AccessCount)
		}
	}
}

// With a short interval, accesses are written without waiting for Close.
func TestEngine_Recall_FlushesAccess(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{AccessFlush: 5 * time.Millisecond})
	if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon.", At: monday}); err != nil {
		t.Fatal(err)
	}
	rec, err := eng.Recall(ctx, memory.Query{Text: "Alice", Limit: 1})
	if err != nil || len(rec.Results) != 1 {
		t.Fatalf("Recall = %v, %v", rec, err)
	}
	id := rec.Results[0].Fact.ID
	deadline := time.Now().Add(5 * time.Second)
	for {
		fs, err := mnemo.StoreOf(eng.Engine).Facts(ctx, memory.DefaultBank, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) == 1 && fs[0].AccessCount == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("access not recorded within 5s: %+v", fs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEngine_Recall_NoAccessRecording(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{AccessFlush: -1})
	if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon.", At: monday}); err != nil {
		t.Fatal(err)
	}
	rec, err := eng.Recall(ctx, memory.Query{Text: "Alice"})
	if err != nil || len(rec.Results) == 0 {
		t.Fatalf("Recall = %v, %v", rec, err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	fs, err := testutil.OpenStoreAt(t, eng.path).Facts(ctx, memory.DefaultBank, []string{rec.Results[0].Fact.ID})
	if err != nil || len(fs) != 1 {
		t.Fatalf("Facts = %v, %v", fs, err)
	}
	if fs[0].AccessCount != 0 {
		t.Errorf("AccessCount = %d with access recording off, want 0", fs[0].AccessCount)
	}
}

func TestEngine_Config(t *testing.T) {
	ctx := context.Background()
	t.Run("Embedder", func(t *testing.T) {
		emb := hashembed.New(64)
		eng := open(t, mnemo.Config{Embedder: emb})
		if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon.", At: monday}); err != nil {
			t.Fatal(err)
		}
		b, err := eng.Bank(ctx, memory.DefaultBank)
		if err != nil {
			t.Fatal(err)
		}
		if b.Embedder != emb.Name() || b.Dimension != 64 {
			t.Errorf("bank embedder = %s/%d, want %s/64", b.Embedder, b.Dimension, emb.Name())
		}
	})
	t.Run("DefaultEmbedder", func(t *testing.T) {
		eng := open(t, mnemo.Config{})
		if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon.", At: monday}); err != nil {
			t.Fatal(err)
		}
		b, err := eng.Bank(ctx, memory.DefaultBank)
		if err != nil {
			t.Fatal(err)
		}
		if want := hashembed.New(0).Name(); b.Embedder != want {
			t.Errorf("bank embedder = %s, want the built-in %s", b.Embedder, want)
		}
	})
	t.Run("Weights", func(t *testing.T) {
		eng := open(t, mnemo.Config{Weights: recall.Weights{Keyword: 1}})
		if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon. Bob plays the cello.", At: monday}); err != nil {
			t.Fatal(err)
		}
		rec, err := eng.Recall(ctx, memory.Query{Text: "Where did Alice move?", Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Results) != 1 {
			t.Fatalf("keyword-only recall = %d results, want the one fact naming Alice", len(rec.Results))
		}
		for s := range rec.Results[0].Explain {
			if s != memory.StrategyKeyword {
				t.Errorf("strategy %q ran with weight 0", s)
			}
		}
	})
	t.Run("Now", func(t *testing.T) {
		clock := testutil.NewClock(time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC))
		eng := open(t, mnemo.Config{Now: clock.Now})
		// Without At the item is said now, and relative dates resolve
		// against the clock.
		if _, err := eng.Retain(ctx, memory.RetainRequest{Text: "I adopted a cat yesterday."}); err != nil {
			t.Fatal(err)
		}
		rec, err := eng.Recall(ctx, memory.Query{Text: "What happened yesterday?", Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Results) == 0 {
			t.Fatal("no results")
		}
		f := rec.Results[0].Fact
		if want := time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC); !f.OccurredStart.Equal(want) {
			t.Errorf("OccurredStart = %v, want %v", f.OccurredStart, want)
		}
		if !f.CreatedAt.Equal(clock.Now()) {
			t.Errorf("CreatedAt = %v, want the clock's %v", f.CreatedAt, clock.Now())
		}
		if want := time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC); !rec.Analysis.From.Equal(want) {
			t.Errorf("query window from %v, want %v (the engine's clock)", rec.Analysis.From, want)
		}
		if _, ok := rec.Results[0].Explain[memory.StrategyTemporal]; !ok {
			t.Errorf("yesterday's fact not found by the temporal strategy: %v", rec.Results[0].Explain)
		}
	})
}

// The engine is safe for concurrent use.
func TestEngine_Concurrent(t *testing.T) {
	ctx := context.Background()
	eng := open(t, mnemo.Config{AccessFlush: time.Millisecond})
	errs := make(chan error, 16)
	for i := range 8 {
		go func() {
			_, err := eng.Retain(ctx, memory.RetainRequest{ItemID: string(rune('a' + i)), Text: "Alice moved to Lisbon in the spring.", At: monday})
			errs <- err
		}()
		go func() {
			_, err := eng.Recall(ctx, memory.Query{Text: "Alice"})
			if memory.ErrorCode(err) == memory.ENOTFOUND {
				err = nil // before the default bank exists
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	st, err := eng.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 8 {
		t.Errorf("%d documents, want 8", st.Documents)
	}
}

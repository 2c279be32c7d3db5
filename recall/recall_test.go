package recall_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/internal/wordnet"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/retain"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// now is the reference time of the queries: the day after the latest
// session.
var now = time.Date(2023, 5, 9, 9, 0, 0, 0, time.UTC)

// sessions are the conversations of the test bank, one document each.
var sessions = []memory.RetainRequest{
	{ItemID: "s1", Source: memory.SourceChat, At: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), Messages: []memory.Message{
		{ID: "D1:1", Speaker: "Caroline", Text: "I went to the LGBTQ support group last Saturday."},
		{ID: "D1:2", Speaker: "Melanie", Text: "I painted a sunrise over Lake Tahoe."},
		{ID: "D1:3", Speaker: "Caroline", Text: "I'm researching adoption agencies for my future kids."},
	}},
	{ItemID: "s2", Source: memory.SourceChat, At: time.Date(2022, 6, 15, 10, 0, 0, 0, time.UTC), Messages: []memory.Message{
		{ID: "D2:1", Speaker: "Bob", Text: "I adopted a golden retriever named Max."},
		{ID: "D2:2", Speaker: "Alice", Text: "I started learning the cello."},
	}},
	{ItemID: "s3", Source: memory.SourceChat, At: time.Date(2023, 1, 10, 9, 0, 0, 0, time.UTC), Tags: []string{"work"}, Messages: []memory.Message{
		{ID: "D3:1", Speaker: "Alice", Text: "I moved to Lisbon for a new job at Acme."},
		{ID: "D3:2", Speaker: "Bob", Text: "The pottery class starts next Tuesday."},
	}},
}

// bank is a recall pipeline over a real SQLite store holding sessions in
// bank "b".
type bank struct {
	t     *testing.T
	ctx   context.Context
	store *sqlite.Store
	emb   *hashembed.Embedder
	p     *recall.Pipeline
	facts []*memory.Fact          // every fact, in ingestion order
	by    map[string]*memory.Fact // by text
}

func newBank(t *testing.T) *bank {
	t.Helper()
	ctx := context.Background()
	st := testutil.OpenStore(t)
	testutil.CreateBank(t, st, "b")
	clock := testutil.NewClock(now)
	st.Now = clock.Now
	emb := hashembed.New(hashembed.DefaultDimension)
	rp := retain.New(st, emb, extract.NewHeuristic())
	rp.Now = clock.Now
	for _, req := range sessions {
		req.BankID = "b"
		if _, err := rp.Retain(ctx, req); err != nil {
			t.Fatalf("retain %s: %v", req.ItemID, err)
		}
	}
	p := recall.New(st, emb, extract.ResolveTimeRange)
	p.Now = clock.Now
	b := &bank{t: t, ctx: ctx, store: st, emb: emb, p: p, by: map[string]*memory.Fact{}}
	// The bank's active facts that are not sensitive (what a zero
	// memory.Filter passes), read whole through the export.
	var ids []string
	err := st.Export(ctx, "b", func(r *memory.ExportRecord) error {
		if r.Kind == memory.RecordFact && r.Fact.Status == memory.StatusActive && r.Fact.Sensitivity != memory.SensitivitySensitive {
			ids = append(ids, r.Fact.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.facts, err = st.Facts(ctx, "b", ids); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(b.facts, func(x, y *memory.Fact) int { return int(x.Seq - y.Seq) })
	for _, f := range b.facts {
		b.by[f.Text] = f
	}
	if n := len(b.facts); n != 7 {
		t.Fatalf("test bank holds %d facts, want 7", n)
	}
	return b
}

// fact returns the fact whose text starts with prefix.
func (b *bank) fact(prefix string) *memory.Fact {
	b.t.Helper()
	for _, f := range b.facts {
		if strings.HasPrefix(f.Text, prefix) {
			return f
		}
	}
	b.t.Fatalf("no fact starts with %q", prefix)
	return nil
}

func (b *bank) recall(q memory.Query) *memory.Recollection {
	b.t.Helper()
	if q.BankID == "" {
		q.BankID = "b"
	}
	if q.Now.IsZero() {
		q.Now = now
	}
	rec, err := b.p.Recall(b.ctx, q)
	if err != nil {
		b.t.Fatalf("Recall(%q): %v", q.Text, err)
	}
	return rec
}

func resultTexts(rs []memory.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Fact.Text
	}
	return out
}

func resultIDs(rs []memory.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Fact.ID
	}
	return out
}

func TestValidate(t *testing.T) {
	ok := memory.Query{BankID: "b", Text: "what did Melanie paint?"}
	with := func(f func(q *memory.Query)) memory.Query {
		q := ok
		f(&q)
		return q
	}
	for _, tt := range []struct {
		name    string
		q       memory.Query
		wantErr bool
	}{
		{"OK", ok, false},
		{"OK/MaxLimit", with(func(q *memory.Query) { q.Limit = memory.MaxRecallLimit }), false},
		{"OK/MaxBytes", with(func(q *memory.Query) { q.Text = strings.Repeat("a", memory.MaxQueryBytes) }), false},
		{"OK/Syntax", with(func(q *memory.Query) { q.Text = `"NEAR(a b)" OR * : -x` }), false},
		{"OK/ZeroLimitAndBudget", with(func(q *memory.Query) { q.Limit, q.Budget = 0, 0 }), false},
		{"EmptyText", with(func(q *memory.Query) { q.Text = "" }), true},
		{"WhitespaceText", with(func(q *memory.Query) { q.Text = " \t\n" }), true},
		{"InvalidUTF8", with(func(q *memory.Query) { q.Text = "paint \xff\xfe" }), true},
		{"TooLong", with(func(q *memory.Query) { q.Text = strings.Repeat("a", memory.MaxQueryBytes+1) }), true},
		{"NegativeLimit", with(func(q *memory.Query) { q.Limit = -1 }), true},
		{"LimitTooLarge", with(func(q *memory.Query) { q.Limit = memory.MaxRecallLimit + 1 }), true},
		{"NegativeBudget", with(func(q *memory.Query) { q.Budget = -1 }), true},
		{"NoBank", with(func(q *memory.Query) { q.BankID = "" }), true},
		{"BadBank", with(func(q *memory.Query) { q.BankID = "a bank" }), true},
		{"BadBankLong", with(func(q *memory.Query) { q.BankID = strings.Repeat("b", 129) }), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			err := recall.Validate(&q)
			if !tt.wantErr {
				if err != nil {
					t.Errorf("Validate: %v, want nil", err)
				}
				return
			}
			if got := memory.ErrorCode(err); got != memory.EINVALID {
				t.Errorf("Validate: err = %v, want EINVALID", err)
			}
		})
	}
}

func TestPipeline_Recall_Finds(t *testing.T) {
	b := newBank(t)
	for _, tt := range []struct{ query, want string }{
		{"support group", "I went to the LGBTQ support group"},
		{"What did Melanie paint?", "I painted a sunrise"},
		{"Where did Alice move?", "I moved to Lisbon"},
		{"Who has a golden retriever?", "I adopted a golden retriever"},
		{"Which instrument is Alice learning? The cello?", "I started learning the cello"},
		{"When does the pottery class start?", "The pottery class starts"},
		{"Is Caroline thinking about adoption agencies?", "I'm researching adoption agencies"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			rec := b.recall(memory.Query{Text: tt.query})
			if len(rec.Results) == 0 {
				t.Fatal("no results")
			}
			if got := rec.Results[0].Fact.Text; !strings.HasPrefix(got, tt.want) {
				t.Errorf("top result = %q, want %q…; all: %q", got, tt.want, resultTexts(rec.Results))
			}
			for i := 1; i < len(rec.Results); i++ {
				if rec.Results[i].Score > rec.Results[i-1].Score {
					t.Errorf("results not sorted by score at %d: %g > %g", i, rec.Results[i].Score, rec.Results[i-1].Score)
				}
			}
			if rec.Results[0].Explain != nil {
				t.Errorf("Explain set without being asked: %v", rec.Results[0].Explain)
			}
		})
	}
}

func TestPipeline_Recall_Explain(t *testing.T) {
	b := newBank(t)
	// The rank-fused strategies, each on, so that every explanation is
	// checked against the store's own ranking.
	b.p.Weights = recall.Weights{Semantic: 0.1, Keyword: 1, Graph: 0.4, Temporal: 0.3}
	for _, query := range []string{"What did Melanie paint?", "Where did Alice move?", "Bob", "cello or pottery"} {
		t.Run(query, func(t *testing.T) { checkExplain(t, b, memory.Query{Text: query, Explain: true}) })
	}
	rec := b.recall(memory.Query{Text: "What did Melanie paint?", Explain: true})
	top := rec.Results[0]
	for _, s := range []string{memory.StrategyKeyword, memory.StrategySemantic} {
		if top.Explain[s].Rank != 1 {
			t.Errorf("top result %q: %s rank %d, want 1", top.Fact.Text, s, top.Explain[s].Rank)
		}
	}
	if _, ok := top.Explain[memory.StrategyGraph]; !ok {
		t.Errorf("top result %q not found by the graph (Melanie is named): %v", top.Fact.Text, top.Explain)
	}
	if !slices.Contains(rec.Analysis.Entities, "Melanie") {
		t.Errorf("Analysis.Entities = %q, want Melanie", rec.Analysis.Entities)
	}
	if want := []string{"melanie", "paint"}; !slices.Equal(rec.Analysis.Terms, want) {
		t.Errorf("Analysis.Terms = %q, want %q", rec.Analysis.Terms, want)
	}
	// A keyword hit under the floor is no keyword evidence: "alice" alone
	// (the cello fact) scores under half of "alice" and "move" together.
	rec = b.recall(memory.Query{Text: "Where did Alice move?", Explain: true})
	for _, r := range rec.Results {
		if _, ok := r.Explain[memory.StrategyKeyword]; ok && !strings.Contains(r.Fact.Text, "moved") {
			t.Errorf("%q has keyword credit for %q", r.Fact.Text, "Where did Alice move?")
		}
	}
}

// checkExplain checks a recall's explanations against the store's own
// rankings and the fusion formula.
func checkExplain(t *testing.T, b *bank, q memory.Query) {
	t.Helper()
	rec := b.recall(q)
	if len(rec.Results) == 0 {
		t.Fatal("no results")
	}
	// The per-strategy ranks are the store's own rankings, 1-based; the
	// keyword ranking keeps the hits of at least KeywordFloor times the
	// best score.
	key, err := b.store.SearchText(b.ctx, "b", rec.Analysis.Terms, recall.DefaultCandidates, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range key {
		if h.Score < key[0].Score*recall.DefaultKeywordFloor {
			key = key[:i]
			break
		}
	}
	vec, err := b.emb.Embed(b.ctx, []string{q.Text})
	if err != nil {
		t.Fatal(err)
	}
	sem, err := b.store.SearchVector(b.ctx, "b", vec[0], recall.DefaultCandidates, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// A cosine of 0 or less is no semantic evidence: recall drops it.
	for i, h := range sem {
		if h.Score <= 0 {
			sem = sem[:i]
			break
		}
	}
	rankIn := func(hs []memory.Hit, id string) (memory.StrategyScore, bool) {
		for i, h := range hs {
			if h.ID == id {
				return memory.StrategyScore{Rank: i + 1, Score: h.Score}, true
			}
		}
		return memory.StrategyScore{}, false
	}
	w := b.p.Weights
	weight := map[string]float64{memory.StrategySemantic: w.Semantic, memory.StrategyKeyword: w.Keyword, memory.StrategyGraph: w.Graph, memory.StrategyTemporal: w.Temporal}
	for _, r := range rec.Results {
		if len(r.Explain) == 0 {
			t.Errorf("%q: no explanation", r.Fact.Text)
			continue
		}
		for s, want := range map[string][]memory.Hit{memory.StrategyKeyword: key, memory.StrategySemantic: sem} {
			wantSS, found := rankIn(want, r.Fact.ID)
			gotSS, explained := r.Explain[s]
			if found != explained {
				t.Errorf("%q: in %s ranking %v, explained %v", r.Fact.Text, s, found, explained)
				continue
			}
			if found && (gotSS.Rank != wantSS.Rank || math.Abs(gotSS.Score-wantSS.Score) > 1e-9) {
				t.Errorf("%q: %s = %+v, want %+v", r.Fact.Text, s, gotSS, wantSS)
			}
		}
		// The score is the weighted RRF of the explained ranks times a
		// lifecycle boost in [1, 1+2·DefaultBoost], times the coverage
		// factor of the fallback reranker when it explains one.
		rrf, cov := 0.0, 1.0
		for s, ss := range r.Explain {
			if ss.Rank < 1 {
				t.Errorf("%q: %s rank %d", r.Fact.Text, s, ss.Rank)
			}
			if s == recall.StrategyCoverage {
				if ss.Score < 0 || ss.Score > 1 {
					t.Errorf("%q: coverage %g, want it in [0, 1]", r.Fact.Text, ss.Score)
				}
				cov = 1 + b.p.RerankCoverage*ss.Score
				continue
			}
			w, ok := weight[s]
			if !ok {
				t.Errorf("%q: unknown strategy %q", r.Fact.Text, s)
			}
			rrf += w / (recall.DefaultRRFK + float64(ss.Rank))
		}
		if f := r.Score / rrf / cov; f < 1-1e-9 || f > 1+2*recall.DefaultBoost+1e-9 {
			t.Errorf("%q: score %g is %g × its RRF %g, want a factor in [1, %g]", r.Fact.Text, r.Score, f, rrf, 1+2*recall.DefaultBoost)
		}
	}
}

func TestPipeline_Recall_Analysis(t *testing.T) {
	b := newBank(t)
	for _, tt := range []struct {
		query string
		terms []string
	}{
		{"What did Melanie paint?", []string{"melanie", "paint"}},
		{"paint, Paint and PAINT!", []string{"paint"}},
		// A query of stopwords only has no keyword terms (semantic search
		// still runs on it).
		{"who is she?", nil},
	} {
		rec := b.recall(memory.Query{Text: tt.query})
		if !slices.Equal(rec.Analysis.Terms, tt.terms) {
			t.Errorf("Terms of %q = %q, want %q", tt.query, rec.Analysis.Terms, tt.terms)
		}
	}
	rec := b.recall(memory.Query{Text: "Did Caroline and Melanie meet at Lake Tahoe?"})
	got := slices.Clone(rec.Analysis.Entities)
	slices.Sort(got)
	if want := []string{"Caroline", "Lake Tahoe", "Melanie"}; !slices.Equal(got, want) {
		t.Errorf("Entities = %q, want %q", got, want)
	}
}

func TestPipeline_Recall_Limit(t *testing.T) {
	b := newBank(t)
	all := b.recall(memory.Query{Text: "Alice and Bob", Limit: 100})
	if len(all.Results) == 0 {
		t.Fatal("no results")
	}
	for limit := 1; limit <= len(all.Results)+1; limit++ {
		rec := b.recall(memory.Query{Text: "Alice and Bob", Limit: limit})
		if want := min(limit, len(all.Results)); len(rec.Results) != want {
			t.Errorf("Limit %d: %d results, want %d", limit, len(rec.Results), want)
			continue
		}
		// A smaller limit gives the head of the same ranking.
		if got, want := resultIDs(rec.Results), resultIDs(all.Results[:len(rec.Results)]); !slices.Equal(got, want) {
			t.Errorf("Limit %d: %q, want the head of %q", limit, got, resultIDs(all.Results))
		}
	}
	// Zero is the default limit; the bank has fewer facts than it.
	if rec := b.recall(memory.Query{Text: "Alice and Bob"}); len(rec.Results) > memory.DefaultRecallLimit {
		t.Errorf("default limit: %d results", len(rec.Results))
	}
}

func TestPipeline_Recall_Budget(t *testing.T) {
	b := newBank(t)
	full := b.recall(memory.Query{Text: "Caroline"})
	if full.Tokens != recall.CountTokens(full.Context) || full.Tokens == 0 {
		t.Fatalf("Tokens = %d for a context of %d", full.Tokens, recall.CountTokens(full.Context))
	}
	if want, _ := recall.Pack(full.Results, memory.DefaultTokenBudget); full.Context != want {
		t.Errorf("context with the default budget:\n%s\nwant:\n%s", full.Context, want)
	}
	for _, budget := range []int{1, 12, 30, 60, full.Tokens} {
		rec := b.recall(memory.Query{Text: "Caroline", Budget: budget})
		if rec.Tokens > budget || rec.Tokens != recall.CountTokens(rec.Context) {
			t.Errorf("budget %d: %d tokens (%d counted)", budget, rec.Tokens, recall.CountTokens(rec.Context))
		}
		// The budget trims the context, never the results.
		if len(rec.Results) != len(full.Results) {
			t.Errorf("budget %d: %d results, want %d", budget, len(rec.Results), len(full.Results))
		}
		if rec.Context == "" {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(rec.Context, "\n"), "\n")[1:]
		for i, l := range lines {
			if want := memory.FormatFact(rec.Results[i].Fact); l != want {
				t.Errorf("budget %d: line %d = %q, want %q", budget, i, l, want)
			}
		}
	}
}

// The filter's time range bounds every strategy.
func TestPipeline_Recall_FilterTime(t *testing.T) {
	jan := memory.Filter{From: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC)}
	check := func(t *testing.T, b *bank) {
		t.Helper()
		for _, query := range []string{"Alice", "Bob", "golden retriever", "What did Alice and Bob do?"} {
			rec := b.recall(memory.Query{Text: query, Filter: jan, Explain: true})
			for _, r := range rec.Results {
				if et := r.Fact.EventTime(); et.Before(jan.From) || !et.Before(jan.To) {
					t.Errorf("%q: result %q of %v is outside [%v, %v) (found by %v)", query, r.Fact.Text, et, jan.From, jan.To, r.Explain)
				}
			}
		}
		rec := b.recall(memory.Query{Text: "Alice", Filter: jan})
		if len(rec.Results) == 0 || !strings.HasPrefix(rec.Results[0].Fact.Text, "I moved to Lisbon") {
			t.Errorf("Alice in January 2023: %q, want the move to Lisbon first", resultTexts(rec.Results))
		}
	}
	t.Run("WithoutGraph", func(t *testing.T) {
		b := newBank(t)
		b.p.Weights = recall.DefaultWeights
		b.p.Weights.Graph = 0
		check(t, b)
	})
	t.Run("Default", func(t *testing.T) {
		check(t, newBank(t))
	})
}

// Tags and kinds of the filter bound the results too.
func TestPipeline_Recall_FilterTags(t *testing.T) {
	check := func(t *testing.T, b *bank) {
		t.Helper()
		rec := b.recall(memory.Query{Text: "Alice and Bob", Filter: memory.Filter{Tags: []string{"work"}}, Explain: true})
		if len(rec.Results) == 0 {
			t.Fatal("no results tagged work")
		}
		for _, r := range rec.Results {
			if !slices.Contains(r.Fact.Tags, "work") {
				t.Errorf("result %q tagged %q (found by %v), want work", r.Fact.Text, r.Fact.Tags, r.Explain)
			}
		}
		rec = b.recall(memory.Query{Text: "Alice and Bob", Filter: memory.Filter{Tags: []string{"no-such-tag"}}})
		if len(rec.Results) != 0 {
			t.Errorf("results of an unknown tag: %q", resultTexts(rec.Results))
		}
	}
	t.Run("WithoutGraph", func(t *testing.T) {
		b := newBank(t)
		b.p.Weights = recall.Weights{Semantic: 0.1, Keyword: 1, Temporal: 0.3}
		check(t, b)
	})
	t.Run("Default", func(t *testing.T) {
		check(t, newBank(t))
	})
}

func TestPipeline_Recall_Temporal(t *testing.T) {
	b := newBank(t)
	q := memory.Query{Text: "What happened last June?", Explain: true}
	rec := b.recall(q)
	june := time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)
	if !rec.Analysis.From.Equal(june) || !rec.Analysis.To.Equal(june.AddDate(0, 1, 0)) {
		t.Errorf("analysis window = [%v, %v), want June 2022", rec.Analysis.From, rec.Analysis.To)
	}
	var temporal []string
	for _, r := range rec.Results {
		if _, ok := r.Explain[memory.StrategyTemporal]; !ok {
			continue
		}
		temporal = append(temporal, r.Fact.Text)
		if et := r.Fact.EventTime(); et.Before(rec.Analysis.From) || !et.Before(rec.Analysis.To) {
			t.Errorf("temporal hit %q at %v is outside the window", r.Fact.Text, et)
		}
	}
	want := []string{b.fact("I adopted a golden").Text, b.fact("I started learning").Text}
	slices.Sort(temporal)
	slices.Sort(want)
	if !slices.Equal(temporal, want) {
		t.Errorf("found by the temporal strategy: %q, want %q", temporal, want)
	}
	// The window moves with the reference time: asked a year later, last
	// June is June 2023, when nothing was said.
	later := b.recall(memory.Query{Text: q.Text, Explain: true, Now: now.AddDate(1, 0, 0)})
	for _, r := range later.Results {
		if _, ok := r.Explain[memory.StrategyTemporal]; ok {
			t.Errorf("asked in 2024, %q found by the temporal strategy", r.Fact.Text)
		}
	}
	// Without a resolver there is no temporal strategy.
	b.p.ResolveTime = nil
	rec = b.recall(q)
	if !rec.Analysis.From.IsZero() {
		t.Errorf("without resolver: window from %v", rec.Analysis.From)
	}
	for _, r := range rec.Results {
		if _, ok := r.Explain[memory.StrategyTemporal]; ok {
			t.Errorf("without resolver: %q found by the temporal strategy", r.Fact.Text)
		}
	}
}

// Query.Now defaults to the pipeline's clock.
func TestPipeline_Recall_Now(t *testing.T) {
	b := newBank(t)
	clock := testutil.NewClock(now)
	b.p.Now = clock.Now
	rec, err := b.p.Recall(b.ctx, memory.Query{BankID: "b", Text: "What happened last June?"})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC); !rec.Analysis.From.Equal(want) {
		t.Errorf("window from %v, want %v", rec.Analysis.From, want)
	}
	clock.Set(now.AddDate(1, 0, 0))
	rec, err = b.p.Recall(b.ctx, memory.Query{BankID: "b", Text: "What happened last June?"})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC); !rec.Analysis.From.Equal(want) {
		t.Errorf("a year later: window from %v, want %v", rec.Analysis.From, want)
	}
}

func TestPipeline_Recall_ErrNotFound(t *testing.T) {
	b := newBank(t)
	_, err := b.p.Recall(b.ctx, memory.Query{BankID: "nope", Text: "support group"})
	if got := memory.ErrorCode(err); got != memory.ENOTFOUND {
		t.Errorf("Recall from an unknown bank: err = %v, want ENOTFOUND", err)
	}
	_, err = b.p.Recall(b.ctx, memory.Query{BankID: "no pe", Text: "support group"})
	if got := memory.ErrorCode(err); got != memory.EINVALID {
		t.Errorf("Recall from an invalid bank name: err = %v, want EINVALID", err)
	}
}

func TestPipeline_Recall_EmptyBank(t *testing.T) {
	st := testutil.OpenStore(t)
	testutil.CreateBank(t, st, "empty")
	p := recall.New(st, hashembed.New(0), extract.ResolveTimeRange)
	rec, err := p.Recall(context.Background(), memory.Query{BankID: "empty", Text: "What happened last June?", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Results) != 0 || rec.Context != "" || rec.Tokens != 0 {
		t.Errorf("recall from an empty bank = %+v", rec)
	}
}

func TestPipeline_Recall_ErrEmbedder(t *testing.T) {
	b := newBank(t)
	b.p.Embedder = &testutil.FailingEmbedder{Embedder: b.emb, Err: testutil.ErrInjected}
	if _, err := b.p.Recall(b.ctx, memory.Query{BankID: "b", Text: "support group"}); !errors.Is(err, testutil.ErrInjected) {
		t.Errorf("Recall with a failing embedder: err = %v, want the embedder's", err)
	}
}

// User text is never read as full-text query syntax: queries full of it
// neither fail nor match more than their words do.
func TestPipeline_Recall_Injection(t *testing.T) {
	b := newBank(t)
	queries := []string{
		`"support group`,
		`"support" "group"`,
		`support group"`,
		`NEAR(support group)`,
		`NEAR(support group, 2)`,
		`support*`,
		`*`,
		`"*"`,
		`body: support`,
		`bank: b`,
		`text:support`,
		`:`,
		`((support group`,
		`support) OR (x`,
		`()`,
		`support AND group`,
		`support OR painted`,
		`NOT support`,
		`support NOT group`,
		`AND`,
		`OR OR OR`,
		`^support`,
		`support + group - cello`,
		`{body text}: support`,
		`'; DROP TABLE facts; --`,
		`" OR 1=1 --`,
		"support\x00group",
		`\"support\"`,
		`cello AND NOT pottery`,
	}
	// With the keyword strategy alone, every result holds a term of the
	// query: nothing matches everything.
	kw := newBank(t)
	kw.p.Weights = recall.Weights{Keyword: 1}
	for _, query := range queries {
		t.Run(query, func(t *testing.T) {
			rec := b.recall(memory.Query{Text: query, Limit: memory.MaxRecallLimit})
			if len(rec.Results) > len(b.facts) {
				t.Errorf("%d results from a bank of %d facts", len(rec.Results), len(b.facts))
			}
			terms := map[string]bool{}
			for _, w := range lex.Terms(query) {
				terms[w] = true
			}
			krec := kw.recall(memory.Query{Text: query, Limit: memory.MaxRecallLimit})
			for _, r := range krec.Results {
				body := lex.Terms(retain.EmbedText(r.Fact))
				if !slices.ContainsFunc(body, func(w string) bool { return terms[w] }) {
					t.Errorf("keyword result %q shares no term with %q", r.Fact.Text, query)
				}
			}
			if len(terms) == 0 && len(krec.Results) > 0 {
				t.Errorf("a query without words found %q", resultTexts(krec.Results))
			}
			if len(krec.Results) >= len(kw.facts) {
				t.Errorf("keyword search returned the whole bank: %q", resultTexts(krec.Results))
			}
			// With every strategy, when some fact holds a word of the
			// query, the best result is one of them.
			if len(krec.Results) > 0 {
				if len(rec.Results) == 0 {
					t.Fatalf("no results for %q", query)
				}
				top := rec.Results[0].Fact
				if !slices.ContainsFunc(lex.Terms(retain.EmbedText(top)), func(w string) bool { return terms[w] }) {
					t.Errorf("top result %q shares no term with %q", top.Text, query)
				}
			}
		})
	}
	// The bank is intact.
	if got := testutil.Stats(t, b.store, "b"); got.Facts != len(b.facts) {
		t.Errorf("Stats after the queries: %+v", got)
	}
}

func TestPipeline_Recall_Superseded(t *testing.T) {
	b := newBank(t)
	old := b.fact("I started learning the cello")
	next := b.fact("I moved to Lisbon")
	if _, err := b.store.Write(b.ctx, &memory.WriteBatch{BankID: "b", Supersede: []memory.Supersession{
		{FactID: old.ID, SupersededBy: next.ID, ValidTo: now, ExpiredAt: now},
	}}); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, b *bank) {
		t.Helper()
		for _, query := range []string{"cello", "Which instrument is Alice learning? The cello?", "golden retriever", "What happened last June?", "Alice"} {
			rec := b.recall(memory.Query{Text: query, Explain: true})
			for _, r := range rec.Results {
				if r.Fact.ID == old.ID || r.Fact.Status != memory.StatusActive {
					t.Errorf("%q: superseded fact %q returned (status %q, found by %v)", query, r.Fact.Text, r.Fact.Status, r.Explain)
				}
			}
		}
		// Asked for, superseded facts come back, marked as such.
		rec := b.recall(memory.Query{Text: "cello", Filter: memory.Filter{Statuses: []memory.Status{memory.StatusActive, memory.StatusSuperseded}}})
		if len(rec.Results) == 0 || rec.Results[0].Fact.ID != old.ID {
			t.Fatalf("cello with superseded facts: %q, want the cello first", resultTexts(rec.Results))
		}
		if f := rec.Results[0].Fact; f.Status != memory.StatusSuperseded || f.SupersededBy != next.ID || !f.ValidTo.Equal(now) {
			t.Errorf("superseded fact = status %q by %q until %v", f.Status, f.SupersededBy, f.ValidTo)
		}
		rec = b.recall(memory.Query{Text: "cello", Filter: memory.Filter{Statuses: []memory.Status{memory.StatusSuperseded}}})
		for _, r := range rec.Results {
			if r.Fact.Status != memory.StatusSuperseded {
				t.Errorf("only superseded asked: %q is %q", r.Fact.Text, r.Fact.Status)
			}
		}
	}
	t.Run("WithoutGraph", func(t *testing.T) {
		saved := b.p.Weights
		b.p.Weights = recall.Weights{Semantic: 0.1, Keyword: 1, Temporal: 0.3}
		defer func() { b.p.Weights = saved }()
		check(t, b)
	})
	t.Run("Default", func(t *testing.T) {
		check(t, b)
	})
}

// TestPipeline_Recall_ZeroOptions: a pipeline whose Options are zero
// recalls exactly as New's (every zero is its default), and one whose
// options are negative recalls otherwise (they are off).
func TestPipeline_Recall_ZeroOptions(t *testing.T) {
	b := newBank(t)
	zero := &recall.Pipeline{Store: b.store, Embedder: b.emb, ResolveTime: extract.ResolveTimeRange,
		Kinds: wordnet.QueryKinds, Now: b.p.Now}
	off := &recall.Pipeline{Store: b.store, Embedder: b.emb, ResolveTime: extract.ResolveTimeRange,
		Kinds: wordnet.QueryKinds, Now: b.p.Now, Options: recall.Options{KeywordFloor: -1, RerankCoverage: -1,
			RerankNeighbour: -1, DocumentShare: -1, NeighbourShare: -1, NeighbourRadius: -1, NeighbourDecay: -1,
			SpeakerBoost: -1, KindWeight: -1, CountSpread: -1}}
	scores := func(p *recall.Pipeline, q memory.Query) []string {
		t.Helper()
		rec, err := p.Recall(b.ctx, q)
		if err != nil {
			t.Fatalf("Recall(%q): %v", q.Text, err)
		}
		out := make([]string, len(rec.Results))
		for i, r := range rec.Results {
			out[i] = fmt.Sprintf("%s %v", r.Fact.ID, r.Score)
		}
		return out
	}
	differ := false
	for _, text := range []string{"What did Melanie paint?", "Which musical instruments does Alice play?",
		"What did Caroline research last year?", "How many children does Melanie have?", "support group"} {
		q := memory.Query{BankID: "b", Text: text, Now: now}
		want := scores(b.p, q)
		if got := scores(zero, q); !slices.Equal(got, want) {
			t.Errorf("%q: zero options give %q, want New's %q", text, got, want)
		}
		if !slices.Equal(scores(off, q), want) {
			differ = true
		}
	}
	if !differ {
		t.Error("negative options recall as the defaults do, want them off")
	}
}

// Recall is safe for concurrent use.
func TestPipeline_Recall_Concurrent(t *testing.T) {
	b := newBank(t)
	want := resultIDs(b.recall(memory.Query{Text: "What did Melanie paint?"}).Results)
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			rec, err := b.p.Recall(b.ctx, memory.Query{BankID: "b", Text: "What did Melanie paint?", Now: now})
			if err == nil && !slices.Equal(resultIDs(rec.Results), want) {
				err = errors.New("results differ between concurrent recalls")
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestPipeline_Recall_Kinds: a question that asks for a kind of thing
// ("which musical instruments…") finds the fact that names one ("the
// cello") and shares no word with it: the embedded WordNet knows the
// cello is a musical instrument. Without the expansion no keyword
// evidence reaches the cello.
func TestPipeline_Recall_Kinds(t *testing.T) {
	b := newBank(t)
	q := memory.Query{Text: "Which musical instruments came up?", Explain: true}
	cello := b.fact("I started learning the cello")
	score := func(rec *memory.Recollection) float64 {
		for _, r := range rec.Results {
			if r.Fact.ID == cello.ID {
				return r.Explain[recall.StrategyContext].Score
			}
		}
		return 0
	}
	rec := b.recall(q)
	if len(rec.Results) == 0 || rec.Results[0].Fact.ID != cello.ID {
		t.Errorf("with kinds: results %q, want the cello first", resultTexts(rec.Results))
	}
	if s := score(rec); s <= 0 {
		t.Errorf("the cello's context score with kinds = %g, want > 0", s)
	}
	b.p.Kinds = nil
	if s := score(b.recall(q)); s != 0 {
		t.Errorf("the cello's context score without kinds = %g, want 0", s)
	}
}

// TestPipeline_Recall_KindsFunc: the pipeline searches the words
// Pipeline.Kinds gives, and a negative KindWeight turns the search off.
func TestPipeline_Recall_KindsFunc(t *testing.T) {
	b := newBank(t)
	var asked []string
	b.p.Kinds = func(words []string) map[string][]string {
		asked = words
		return map[string][]string{"pets": {"retriever", "dog"}}
	}
	q := memory.Query{Text: "What pets does Bob have?"}
	dog := b.fact("I adopted a golden retriever")
	rec := b.recall(q)
	if !slices.Equal(asked, []string{"what", "pets", "does", "bob", "have"}) {
		t.Errorf("Kinds asked with %q", asked)
	}
	if len(rec.Results) == 0 || rec.Results[0].Fact.ID != dog.ID {
		t.Errorf("results %q, want the retriever first", resultTexts(rec.Results))
	}
	b.p.KindWeight = -1
	asked = nil
	b.recall(q)
	if asked != nil {
		t.Error("Kinds called with KindWeight -1")
	}
}

// TestPipeline_Recall_LimitDepth checks that the candidate depth follows
// the limit: a bank where 120 facts name Kyoto, spread over sessions,
// returns all of them to a query with a limit above that (it returned
// the 32 best and their neighbours).
func TestPipeline_Recall_LimitDepth(t *testing.T) {
	ctx := context.Background()
	st := testutil.OpenStore(t)
	testutil.CreateBank(t, st, "b")
	emb := hashembed.New(hashembed.DefaultDimension)
	rp := retain.New(st, emb, extract.NewHeuristic())
	const sessionsN, perSession = 12, 10
	for s := range sessionsN {
		req := memory.RetainRequest{BankID: "b", ItemID: fmt.Sprint("k", s), Source: memory.SourceChat,
			At: time.Date(2023, 1, 1+s, 9, 0, 0, 0, time.UTC)}
		for i := range perSession {
			req.Messages = append(req.Messages,
				memory.Message{ID: fmt.Sprintf("K%d:%d", s, 2*i), Speaker: "Ann", Text: fmt.Sprintf("Day %d of the trip: we walked around Kyoto and saw temple number %d.", s, i)},
				memory.Message{ID: fmt.Sprintf("K%d:%d", s, 2*i+1), Speaker: "Ben", Text: fmt.Sprintf("I cooked pasta with %d tomatoes tonight.", i)})
		}
		if _, err := rp.Retain(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	p := recall.New(st, emb, extract.ResolveTimeRange)
	rec, err := p.Recall(ctx, memory.Query{BankID: "b", Text: "Kyoto", Limit: 1000, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	kyoto := 0
	for _, r := range rec.Results {
		if strings.Contains(r.Fact.Text, "Kyoto") {
			kyoto++
		}
	}
	if want := sessionsN * perSession; kyoto != want {
		t.Errorf("recall Kyoto limit 1000: %d of the %d facts that say Kyoto (%d results)", kyoto, want, len(rec.Results))
	}
}

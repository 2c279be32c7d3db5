package recall_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/internal/wordnet"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// variant is one configuration of the read path that TestMeasureAblation
// scores: a change to the default pipeline.
type variant struct {
	name string
	set  func(p *recall.Pipeline)
}

// variants are the rows of the ablation in docs/recall.md, each a change
// to the default pipeline (a negative option turns its signal off).
var variants = []variant{
	{"default", func(*recall.Pipeline) {}},
	{"no document share", func(p *recall.Pipeline) { p.DocumentShare = -1 }},
	{"no neighbour share", func(p *recall.Pipeline) { p.NeighbourShare = -1 }},
	{"no speaker boost", func(p *recall.Pipeline) { p.SpeakerBoost = -1 }},
	{"no coverage rerank", func(p *recall.Pipeline) { p.RerankCoverage = -1 }},
	{"no count spread", func(p *recall.Pipeline) { p.CountSpread = -1 }},
	{"no kinds", func(p *recall.Pipeline) { p.Kinds = nil }},
	{"no temporal", func(p *recall.Pipeline) { p.Weights = recall.Weights{Context: 1} }},
	{"no keyword floor", func(p *recall.Pipeline) { p.KeywordFloor = -1 }},
	{"keyword only (BM25 by rank)", func(p *recall.Pipeline) { p.Weights = recall.Weights{Keyword: 1} }},
	{"plain BM25 (keyword, no floor, rerank or spread)", func(p *recall.Pipeline) {
		p.Weights = recall.Weights{Keyword: 1}
		p.KeywordFloor, p.RerankCoverage, p.CountSpread = -1, -1, -1
	}},
	{"kinds without units (list)", func(p *recall.Pipeline) {
		k := p.Kinds
		p.Kinds = func(words []string) map[string][]string {
			out := k(words)
			for _, u := range []string{"days", "weeks", "hours", "years", "minutes", "months", "total", "time"} {
				delete(out, u)
			}
			return out
		}
	}},
	{"kinds without measures (WordNet)", func(p *recall.Pipeline) {
		k := p.Kinds
		lx, err := wordnet.Nouns()
		if err != nil {
			panic(err)
		}
		units := map[string]bool{}
		for _, u := range lx.Hyponyms("measure", 0) {
			units[u] = true
		}
		p.Kinds = func(words []string) map[string][]string {
			out := k(words)
			for w := range out {
				if units[lx.Lemma(w)] || units[lx.Lemma(strings.TrimSuffix(w, "s"))] {
					delete(out, w)
				}
			}
			return out
		}
	}},
	{"context, no shares, no rerank", func(p *recall.Pipeline) {
		p.Weights = recall.Weights{Context: 1}
		p.DocumentShare, p.NeighbourShare, p.SpeakerBoost, p.RerankCoverage, p.CountSpread = -1, -1, -1, -1, -1
		p.Kinds = nil
	}},
}

// measured is one data set ready to be recalled: its conversations
// retained in a SQLite file, one bank per conversation.
type measured struct {
	name      string
	merged    bool // every conversation in one bank, "all"
	data      *importer.LoCoMo
	store     *sqlite.Store
	abilities map[string]string // query id → BEAM ability, when known
}

// TestMeasureAblation measures the read path's components on the dev
// data sets side by side (docs/recall.md, "Both kinds of conversation"):
// it retains LoCoMo dev and BEAM dev offline once, as `mnemo bench
// locomo` does, and scores every variant on both, printing recall@10,
// MRR, latency and the groups. It asserts nothing: it is a measurement,
// run with
//
//	MNEMO_MEASURE=1 go test -run TestMeasureAblation -v -timeout 30m ./recall
//
// MNEMO_MEASURE_DIR keeps the retained banks there between runs (delete
// them after a change to the write path), MNEMO_VARIANTS picks variants
// by name (comma-separated substrings), MNEMO_MEASURE_RUNS writes each
// variant's run files there, MNEMO_MEASURE_MERGED retains all the
// conversations of a data set in one bank (a bank 5 and 10 times as
// large, each question asked of all of it), MNEMO_MEASURE_WARM=N times
// warm recalls (the least of N per question) and MNEMO_MEASURE_SLOW lists
// the slowest questions. It skips without the variable or the data.
func TestMeasureAblation(t *testing.T) {
	if os.Getenv("MNEMO_MEASURE") == "" {
		t.Skip("a measurement: set MNEMO_MEASURE=1 to run it")
	}
	shared := filepath.Join("..", "..", "shared")
	var sets []*measured
	for _, name := range []string{"locomo-dev", "beam-dev"} {
		path := filepath.Join(shared, "data", name+".json")
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no %s: %v", path, err)
		}
		sets = append(sets, retainMeasured(t, name, path, filepath.Join(shared, "bench", name+"-queries.jsonl")))
	}
	pick := os.Getenv("MNEMO_VARIANTS")
	for _, v := range variants {
		if pick != "" && !slices.ContainsFunc(strings.Split(pick, ","), func(s string) bool { return strings.Contains(v.name, s) }) {
			continue
		}
		line := fmt.Sprintf("%-36s", v.name)
		for _, m := range sets {
			line += " | " + m.score(t, v)
		}
		t.Log(line)
	}
}

// retainMeasured retains the data set at path into a SQLite file (or
// reopens the one MNEMO_MEASURE_DIR keeps) and reads the abilities of its
// queries from queries, when that file exists.
func retainMeasured(t testing.TB, name, path, queries string) *measured {
	t.Helper()
	ctx := context.Background()
	data, err := importer.LoadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("MNEMO_MEASURE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	merged := os.Getenv("MNEMO_MEASURE_MERGED") != ""
	if merged {
		name += "-merged"
	}
	m := &measured{name: name, data: data, merged: merged, abilities: map[string]string{}}
	db := filepath.Join(dir, name+".db")
	if _, err := os.Stat(db); err != nil {
		eng, err := mnemo.Open(ctx, mnemo.Config{DB: db + ".tmp", JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range data.Conversations {
			if i == 0 || !merged {
				if _, err := eng.CreateBank(ctx, m.bank(c)); err != nil {
					t.Fatal(err)
				}
			}
			for _, req := range c.RetainRequests(m.bank(c)) {
				if _, err := eng.Retain(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(db+".tmp"+suffix, db+suffix); err != nil && suffix == "" {
				t.Fatal(err)
			}
		}
	}
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m.store = st
	if f, err := os.Open(queries); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var q struct {
				ID      string `json:"query_id"`
				Ability string `json:"category_name"`
			}
			if json.Unmarshal(sc.Bytes(), &q) == nil && strings.HasPrefix(m.name, "beam") {
				m.abilities[q.ID] = q.Ability
			}
		}
	}
	return m
}

// bank is the bank conversation c is retained in.
func (m *measured) bank(c *importer.LoCoMoConversation) string {
	if m.merged {
		return "all"
	}
	return c.ID
}

// score recalls every evaluated query of m with the default pipeline
// changed by v and returns a line of figures: recall@10, MRR and, per
// group (LoCoMo's categories, or BEAM's abilities), recall@10.
func (m *measured) score(t *testing.T, v variant) string {
	t.Helper()
	ctx := context.Background()
	p := recall.New(m.store, hashembed.New(hashembed.DefaultDimension), extract.ResolveTimeRange)
	v.set(p)
	var (
		scores []bench.QueryScore
		groups []string
		took   []time.Duration
		run    *json.Encoder
	)
	if dir := os.Getenv("MNEMO_MEASURE_RUNS"); dir != "" {
		f, err := os.Create(filepath.Join(dir, m.name+"-"+strings.ReplaceAll(v.name, " ", "_")+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		run = json.NewEncoder(f)
	}
	// MNEMO_MEASURE_WARM=N: a first pass loads every bank's index and the
	// lexicon, then N passes time each question, and its latency is the
	// least of them: what a recall costs warm, with little of a loaded
	// machine's noise in it.
	var warm []time.Duration
	if n, _ := strconv.Atoi(os.Getenv("MNEMO_MEASURE_WARM")); n > 0 {
		for pass := 0; pass <= n; pass++ {
			i := 0
			for _, c := range m.data.Conversations {
				for _, q := range c.Queries {
					if !q.Evaluated {
						continue
					}
					start := time.Now()
					if _, err := p.Recall(ctx, memory.Query{BankID: m.bank(c), Text: q.Question, Limit: bench.DefaultLoCoMoLimit, Now: c.Now}); err != nil {
						t.Fatal(err)
					}
					d := time.Since(start)
					switch {
					case pass == 1:
						warm = append(warm, d)
					case pass > 1:
						warm[i] = min(warm[i], d)
					}
					i++
				}
			}
		}
	}
	for _, c := range m.data.Conversations {
		for _, q := range c.Queries {
			if !q.Evaluated {
				continue
			}
			start := time.Now()
			rec, err := p.Recall(ctx, memory.Query{BankID: m.bank(c), Text: q.Question, Limit: bench.DefaultLoCoMoLimit, Now: c.Now})
			took = append(took, time.Since(start))
			if err != nil {
				t.Fatalf("%s %s: %v", m.name, q.ID, err)
			}
			ranked := bench.RankedRefs(rec)
			if run != nil {
				if err := run.Encode(map[string]any{"query_id": q.ID, "ranked": ranked}); err != nil {
					t.Fatal(err)
				}
			}
			scores = append(scores, bench.ScoreQuery(ranked, q.Gold))
			g := q.Category.String()
			if a := m.abilities[q.ID]; a != "" {
				g = a
			}
			groups = append(groups, g)
		}
	}
	if warm != nil {
		took = warm
	}
	if os.Getenv("MNEMO_MEASURE_SLOW") != "" {
		qs := m.data.EvaluatedQueries()
		order := make([]int, len(took))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(i, j int) bool { return took[order[i]] > took[order[j]] })
		for _, i := range order[:min(8, len(order))] {
			t.Logf("slow %s %v %q", m.name, took[i], qs[i].Question)
		}
	}
	all, by := bench.Summarize(scores, groups)
	names := make([]string, 0, len(by))
	for g := range by {
		names = append(names, g)
	}
	sort.Strings(names)
	lat := bench.Percentiles(took)
	out := fmt.Sprintf("%s R@10 %.4f MRR %.4f p50 %.2fms p95 %.1fms p99 %.1fms", m.name, all.Recall10, all.MRR, lat.P50, lat.P95, lat.P99)
	for _, g := range names {
		out += fmt.Sprintf(" %s %.3f", short(g), by[g].Recall10)
	}
	return out
}

// short abbreviates a group's name to its first four letters.
func short(g string) string {
	if len(g) > 4 {
		return g[:4]
	}
	return g
}

// BenchmarkRecall_Dev times one warm recall over the dev sets' questions
// in turn (every bank's index loaded first), for profiling the read path
// on real data:
//
//	MNEMO_MEASURE_DIR=/tmp/m go test -run '^$' -bench Recall_Dev -cpuprofile cpu.out ./recall
//
// It retains the data sets as TestMeasureAblation does (kept in
// MNEMO_MEASURE_DIR when set) and skips without them.
func BenchmarkRecall_Dev(b *testing.B) {
	shared := filepath.Join("..", "..", "shared")
	for _, name := range []string{"locomo-dev", "beam-dev"} {
		path := filepath.Join(shared, "data", name+".json")
		if _, err := os.Stat(path); err != nil {
			b.Skipf("no %s: %v", path, err)
		}
		b.Run(name, func(b *testing.B) {
			m := retainMeasured(b, name, path, "")
			ctx := context.Background()
			p := recall.New(m.store, hashembed.New(hashembed.DefaultDimension), extract.ResolveTimeRange)
			var qs []memory.Query
			for _, c := range m.data.Conversations {
				for _, q := range c.Queries {
					if q.Evaluated {
						qs = append(qs, memory.Query{BankID: m.bank(c), Text: q.Question, Limit: bench.DefaultLoCoMoLimit, Now: c.Now})
					}
				}
			}
			for _, q := range qs { // warm: every bank's index and the lexicon
				if _, err := p.Recall(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := p.Recall(ctx, qs[i%len(qs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package consolidate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// The dream tests' bank: three topics of eight facts each, every fact of a
// topic naming its marker word, with fixed vectors — the topic's axis
// and a little noise — so that k-means finds the topics.
var dreamTopics = []struct{ marker, template string }{
	{"marathon", "Sam runs the marathon route, stretch %d"},
	{"sourdough", "Sam feeds the sourdough starter, batch %d"},
	{"garden", "Sam waters the garden beds, row %d"},
}

// dreamVector is fact i of topic t: axis t plus noise, normalised.
func dreamVector(t, i int) []float32 {
	rng := rand.New(rand.NewPCG(uint64(t), uint64(i)))
	v := make([]float32, storetest.TestDimension)
	v[t] = 1
	for j := range v {
		v[j] += float32(0.08 * (rng.Float64() - 0.5))
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for j := range v {
		v[j] /= float32(math.Sqrt(n))
	}
	return v
}

// dreamBank writes the three topics to a new SQLite store and returns it
// with the facts' ids by topic marker.
func dreamBank(t *testing.T, sensitive ...string) (*sqlite.Store, map[string][]string) {
	t.Helper()
	st := testutil.OpenStore(t)
	testutil.CreateBank(t, st, "b")
	var texts []string
	for _, tp := range dreamTopics {
		for i := range 8 {
			texts = append(texts, fmt.Sprintf(tp.template, i))
		}
	}
	w := storetest.NewTestBatch("b", "doc", texts...)
	ids := map[string][]string{}
	for k, f := range w.Facts {
		t, i := k/8, k%8
		f.Embedding = dreamVector(t, i)
		if slices.Contains(sensitive, dreamTopics[t].marker) {
			f.Sensitivity = memory.SensitivitySensitive
		}
		ids[dreamTopics[t].marker] = append(ids[dreamTopics[t].marker], f.ID)
	}
	if _, err := st.Write(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	return st, ids
}

// dreamLLM answers the dream pass's calls as a model would, from what
// they hold: a bridge call by the topics its prompt names (sorted markers
// joined by "+"), the evaluator by the insights it lists.
type dreamLLM struct {
	bridges map[string][2]string // pair → bridge, insight; absent: no insight
	fail    map[string]bool      // pairs whose bridge call fails
	reject  []string             // insights the evaluator rejects
	evalErr error

	mu   sync.Mutex
	reqs []*memory.ChatRequest
}

func (l *dreamLLM) Name() string { return "dreams-test" }

var evalLine = regexp.MustCompile(`\[(\d+)\] BRIDGE: .*\n\s+INSIGHT: (.*)`)

func (l *dreamLLM) Chat(_ context.Context, req *memory.ChatRequest) (*memory.ChatResponse, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, req)
	l.mu.Unlock()
	var ans any
	switch req.Stage {
	case consolidate.StageDream:
		key := pairKey(req.Messages[0].Content)
		if l.fail[key] {
			return nil, memory.Errorf(memory.EUNAVAILABLE, "scripted failure for %s", key)
		}
		b := l.bridges[key]
		ans = map[string]string{"bridge": b[0], "insight": b[1]}
	case consolidate.StageDreamEvaluate:
		if l.evalErr != nil {
			return nil, l.evalErr
		}
		selected := []int{}
		for _, m := range evalLine.FindAllStringSubmatch(req.Messages[0].Content, -1) {
			if !slices.Contains(l.reject, m[2]) {
				i, _ := strconv.Atoi(m[1])
				selected = append(selected, i)
			}
		}
		ans = map[string]any{"selected": selected, "reasoning": "scripted"}
	default:
		return nil, fmt.Errorf("unexpected stage %q", req.Stage)
	}
	j, _ := json.Marshal(ans)
	return &memory.ChatResponse{JSON: j, Usage: memory.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

// pairKey names the topics a bridge prompt holds.
func pairKey(prompt string) string {
	var ms []string
	for _, tp := range dreamTopics {
		if strings.Contains(prompt, tp.marker) {
			ms = append(ms, tp.marker)
		}
	}
	slices.Sort(ms)
	return strings.Join(ms, "+")
}

func (l *dreamLLM) stages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		out = append(out, r.Stage)
	}
	return out
}

const (
	insightRB = "Sam paces his long runs the way he paces the starter: every two days."
	insightRG = "Sam only runs on the days the garden needs no water."
)

func newDreamLLM() *dreamLLM {
	return &dreamLLM{bridges: map[string][2]string{
		"marathon+sourdough": {"feeding rhythm", insightRB},
		"garden+marathon":    {"weather dependence", insightRG},
		// garden+sourdough: no genuine insight.
	}}
}

// dreamDefaults are the seeds' numbers, dreams on, with k = 3: one
// cluster per topic.
func dreamDefaults() consolidate.DreamDefaults {
	d := consolidate.NewDefaults().Dream
	d.Enabled, d.MinClusters = true, 3
	return d
}

func TestDreams(t *testing.T) {
	ctx := context.Background()
	st, ids := dreamBank(t)
	llm := newDreamLLM()
	llm.reject = []string{insightRG}
	res, err := consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0, dreamDefaults())
	if err != nil {
		t.Fatalf("Dreams: %v", err)
	}
	// 24 facts, 3 clusters, 3 pairs; garden+sourdough has no insight,
	// the evaluator rejects garden+marathon's.
	want := map[string]int{"sampled": 24, "clusters": 3, "pairs": 3, "bridged": 2, "failed": 0, "kept": 1, "duplicates": 0, "stored": 1}
	if got := res.Counts(); !maps.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if got := llm.stages(); len(got) != 4 || got[3] != consolidate.StageDreamEvaluate {
		t.Errorf("calls %v, want 3 bridges then the evaluator", got)
	}
	dreams, err := st.ListDreams(ctx, "b", 0)
	if err != nil || len(dreams) != 1 {
		t.Fatalf("ListDreams: %d, %v; want 1", len(dreams), err)
	}
	d := dreams[0]
	if d.Bridge != "feeding rhythm" || d.Insight != insightRB || !d.CreatedAt.Equal(t0) || len(d.Embedding) == 0 {
		t.Errorf("dream %+v", d)
	}
	// Sources: the two cores, then each core's two supporters, from the
	// two clusters bridged.
	if len(d.SourceFactIDs) != 6 {
		t.Fatalf("sources %v, want 6", d.SourceFactIDs)
	}
	run, bake := 0, 0
	for _, id := range d.SourceFactIDs {
		switch {
		case slices.Contains(ids["marathon"], id):
			run++
		case slices.Contains(ids["sourdough"], id):
			bake++
		}
	}
	if run != 3 || bake != 3 || !slices.Contains(ids["marathon"], d.SourceFactIDs[0]) && !slices.Contains(ids["marathon"], d.SourceFactIDs[1]) {
		t.Errorf("sources %v: want 3 marathon and 3 sourdough facts, the cores first", d.SourceFactIDs)
	}
	// The bridge prompt quotes each domain's core and supporters, and the
	// calls ask for the seed system's temperatures and the schemas.
	for _, r := range llm.reqs {
		switch r.Stage {
		case consolidate.StageDream:
			p := r.Messages[0].Content
			if !strings.Contains(p, "DOMAIN A") || !strings.Contains(p, "DOMAIN B") || strings.Count(p, "Sam ") != 6 ||
				r.Temperature != consolidate.DreamTemperature || r.Schema == nil || r.Schema.Name != "dream" {
				t.Errorf("bridge request: temperature %v, schema %v, prompt:\n%s", r.Temperature, r.Schema, p)
			}
		case consolidate.StageDreamEvaluate:
			if r.Temperature != consolidate.DreamEvaluateTemperature || r.Schema == nil || r.Schema.Name != "dream_evaluation" ||
				!strings.Contains(r.Messages[0].Content, insightRB) || !strings.Contains(r.Messages[0].Content, insightRG) {
				t.Errorf("evaluator request: %+v", r)
			}
		}
	}

	t.Run("Dedup", func(t *testing.T) {
		// The next night the model says the same again: a duplicate of
		// the latest dream, not stored.
		llm := newDreamLLM()
		llm.reject = []string{insightRG}
		res, err := consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0.Add(day), dreamDefaults())
		if err != nil {
			t.Fatal(err)
		}
		if res.Kept != 1 || res.Duplicates != 1 || res.Stored != 0 {
			t.Errorf("second run: %v, want kept 1, duplicates 1, stored 0", res.Counts())
		}
		// A new insight for the same pair is stored beside it.
		llm = newDreamLLM()
		llm.bridges["marathon+sourdough"] = [2]string{"patience", "Sam waits out a slow proof the way he waits out a cramp."}
		llm.reject = []string{insightRG}
		if res, err := consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0.Add(2*day), dreamDefaults()); err != nil || res.Stored != 1 {
			t.Errorf("new insight: %v, %v; want it stored", res.Counts(), err)
		}
		if got, _ := st.ListDreams(ctx, "b", 0); len(got) != 2 {
			t.Errorf("%d dreams, want 2", len(got))
		}
	})
}

// Two runs at the same time over the same facts draw the same clusters
// and pairs: the same dream, from the same sources.
func TestDreams_Reproducible(t *testing.T) {
	var got [][]string
	for range 2 {
		st, _ := dreamBank(t)
		res, err := consolidate.Dreams(context.Background(), st, newDreamLLM(), testEmbedder{}, "b", t0, dreamDefaults())
		if err != nil || len(res.Dreams) != 2 {
			t.Fatalf("Dreams: %v, %v; want 2 dreams", res, err)
		}
		got = append(got, []string{res.Dreams[0].ID, strings.Join(res.Dreams[0].SourceFactIDs, ","), res.Dreams[1].ID, strings.Join(res.Dreams[1].SourceFactIDs, ",")})
	}
	if !slices.Equal(got[0], got[1]) {
		t.Errorf("two runs at one time differ:\n%v\n%v", got[0], got[1])
	}
}

// Off by default, without an LLM, and with too few facts, the pass is
// skipped with its reason and calls nothing.
func TestDreams_Skipped(t *testing.T) {
	ctx := context.Background()
	st, _ := dreamBank(t)
	llm := newDreamLLM()
	var skip *consolidate.Skipped
	res, err := consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0, consolidate.NewDefaults().Dream)
	if !errors.As(err, &skip) || skip.Reason != consolidate.DreamsOff || res != nil {
		t.Errorf("default (off): %v, %v; want skipped, %q", res, err, consolidate.DreamsOff)
	}
	if _, err := consolidate.Dreams(ctx, st, nil, testEmbedder{}, "b", t0, dreamDefaults()); !errors.As(err, &skip) || skip.Reason != consolidate.NoLLM {
		t.Errorf("no LLM: %v, want skipped, %q", err, consolidate.NoLLM)
	}
	// A sample of 10 facts, fewer than the 20 the pass needs.
	d := dreamDefaults()
	d.Sample = 10
	res, err = consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0, d)
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "10 facts") || res == nil || res.Sampled != 10 {
		t.Errorf("sample of 10: %v, %v; want skipped for too few facts", res, err)
	}
	if n := len(llm.stages()); n != 0 {
		t.Errorf("%d LLM calls, want none", n)
	}
	d = dreamDefaults()
	d.MaxPairs = 0
	if _, err := consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0, d); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("no pairs allowed: %v, want EINVALID", err)
	}
	if _, err := consolidate.Dreams(ctx, st, llm, testEmbedder{}, "nope", t0, dreamDefaults()); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown bank: %v, want ENOTFOUND", err)
	}
}

// Sensitive facts never reach a prompt.
func TestDreams_Sensitive(t *testing.T) {
	st, _ := dreamBank(t, "garden")
	llm := newDreamLLM()
	d := dreamDefaults()
	d.MinFacts = 10
	res, err := consolidate.Dreams(context.Background(), st, llm, testEmbedder{}, "b", t0, d)
	if err != nil || res.Sampled != 16 {
		t.Fatalf("Dreams: %v, %v; want 16 facts sampled", res, err)
	}
	for _, r := range llm.reqs {
		if strings.Contains(r.Messages[0].Content, "garden") {
			t.Errorf("a prompt names a sensitive fact:\n%s", r.Messages[0].Content)
		}
	}
}

// A failed bridge call is counted and the others go on; when every one
// fails, or the evaluator fails, the pass fails and stores nothing.
func TestDreams_Failures(t *testing.T) {
	ctx := context.Background()
	st, _ := dreamBank(t)
	llm := newDreamLLM()
	llm.fail = map[string]bool{"marathon+sourdough": true}
	res, err := consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0, dreamDefaults())
	if err != nil || res.Failed != 1 || res.Bridged != 1 || res.Stored != 1 || res.Dreams[0].Insight != insightRG {
		t.Errorf("one call failed: %v, %v; want the other pair's dream stored", res.Counts(), err)
	}

	st, _ = dreamBank(t)
	llm = newDreamLLM()
	llm.fail = map[string]bool{"marathon+sourdough": true, "garden+marathon": true, "garden+sourdough": true}
	res, err = consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0, dreamDefaults())
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || res == nil || res.Failed != 3 {
		t.Errorf("every call failed: %v, %v; want EUNAVAILABLE with 3 failed", res, err)
	}
	llm = newDreamLLM()
	llm.evalErr = memory.Errorf(memory.EUNAVAILABLE, "evaluator down")
	res, err = consolidate.Dreams(ctx, st, llm, testEmbedder{}, "b", t0, dreamDefaults())
	if memory.ErrorCode(err) != memory.EUNAVAILABLE || res == nil || res.Bridged != 2 || res.Stored != 0 {
		t.Errorf("evaluator failed: %v, %v; want EUNAVAILABLE, 2 bridged, none stored", res, err)
	}
	if got, _ := st.ListDreams(ctx, "b", 0); len(got) != 0 {
		t.Errorf("%d dreams stored by failed runs, want none", len(got))
	}
}

// KMeans finds well separated groups whatever the seed, the same way
// twice for one seed, and never more clusters than distinct vectors.
func TestKMeans(t *testing.T) {
	var vecs [][]float32
	for g := range 3 {
		for i := range 8 {
			vecs = append(vecs, dreamVector(g, i))
		}
	}
	for seed := range uint64(20) {
		got := consolidate.KMeans(vecs, 3, 20, rand.New(rand.NewPCG(seed, 1)))
		want := [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}, {16, 17, 18, 19, 20, 21, 22, 23}}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("seed %d: %v, want the three groups", seed, got)
		}
	}
	a := consolidate.KMeans(vecs, 5, 20, rand.New(rand.NewPCG(7, 7)))
	b := consolidate.KMeans(vecs, 5, 20, rand.New(rand.NewPCG(7, 7)))
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("same seed, two answers: %v and %v", a, b)
	}
	same := [][]float32{vecs[0], vecs[0], vecs[0]}
	if got := consolidate.KMeans(same, 3, 20, rand.New(rand.NewPCG(1, 1))); len(got) != 1 || len(got[0]) != 3 {
		t.Errorf("three equal vectors: %v, want one cluster", got)
	}
	if got := consolidate.KMeans(nil, 3, 20, rand.New(rand.NewPCG(1, 1))); got != nil {
		t.Errorf("no vectors: %v", got)
	}
}

// The dream pass is off by default and the bank's "dreams" setting turns
// it on; a run then takes it when an LLM is there. The dream and
// archival numbers are bank settings like the others, checked when set.
func TestDreams_Settings(t *testing.T) {
	d := consolidate.NewDefaults()
	if !d.Off(consolidate.PassDreams) || d.Off(consolidate.PassArchive) {
		t.Errorf("defaults: dreams off %v, archive off %v; want dreams off only", d.Off(consolidate.PassDreams), d.Off(consolidate.PassArchive))
	}
	if full, _ := consolidate.Enabled(d, true); slices.Contains(full, consolidate.PassDreams) || !slices.Contains(full, consolidate.PassArchive) {
		t.Errorf("a full run by default: %v, want archive and no dreams", full)
	}
	on, _, err := consolidate.Apply(map[string]string{"dreams": "on", "dream_max_pairs": "3", "archive_fact_age": "60d"}, d, consolidate.RunnerConfig{})
	if err != nil || on.Off(consolidate.PassDreams) || on.Dream.MaxPairs != 3 || on.Archive.FactAge != 60*day {
		t.Fatalf("Apply: %+v, %+v, %v", on.Dream, on.Archive, err)
	}
	if full, _ := consolidate.Enabled(on, true); !slices.Contains(full, consolidate.PassDreams) {
		t.Errorf("dreams on, with an LLM: %v, want dreams", full)
	}
	if full, _ := consolidate.Enabled(on, false); slices.Contains(full, consolidate.PassDreams) {
		t.Errorf("dreams on, no LLM: %v, want no dreams", full)
	}
	for _, kv := range [][2]string{{"dream_max_pairs", "0"}, {"dream_dedup_cosine", "1.5"}, {"dream_sample", "1"}, {"archive_fact_age", "off"}, {"archive_decay_threshold", "-1"}} {
		if _, _, err := consolidate.Apply(map[string]string{kv[0]: kv[1]}, d, consolidate.RunnerConfig{}); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%s=%s: %v, want EINVALID", kv[0], kv[1], err)
		}
	}
	names := map[string]bool{}
	for _, k := range consolidate.Knobs(d, consolidate.RunnerConfig{}) {
		names[k.Name] = true
	}
	for _, n := range []string{"dreams", "dream_sample", "dream_min_facts", "dream_cluster_factor", "dream_min_clusters", "dream_iterations", "dream_supporters",
		"dream_max_pairs", "dream_dedup_recent", "dream_dedup_cosine", "archive_fact_age", "archive_decay_threshold", "archive_observation_age",
		"archive_observation_stale", "archive_keep_tags"} {
		if !names[n] {
			t.Errorf("no setting %q", n)
		}
	}
}

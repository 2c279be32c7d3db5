package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
)

// tinyLoCoMo is the importer's small LoCoMo fixture.
var tinyLoCoMo = filepath.Join("..", "importer", "testdata", "locomo-tiny.json")

type runLine struct {
	QueryID string   `json:"query_id"`
	Ranked  []string `json:"ranked"`
}

func readRunFile(t *testing.T, b []byte) []runLine {
	t.Helper()
	var out []runLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l runLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("run line %q: %v", sc.Text(), err)
		}
		if l.Ranked == nil {
			t.Fatalf("run line %q: ranked is not a list", sc.Text())
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rescore scores a run file with the metric code, independently of the
// runner's own bookkeeping.
func rescore(t *testing.T, d *importer.LoCoMo, lines []runLine) (GroupScore, map[string]GroupScore) {
	t.Helper()
	qs := d.EvaluatedQueries()
	if len(lines) != len(qs) {
		t.Fatalf("run file: got %d lines, want %d", len(lines), len(qs))
	}
	var scores []QueryScore
	var groups []string
	for i, q := range qs {
		if lines[i].QueryID != q.ID {
			t.Fatalf("run line %d: got %s, want %s", i, lines[i].QueryID, q.ID)
		}
		scores = append(scores, ScoreQuery(lines[i].Ranked, q.Gold))
		groups = append(groups, q.Category.String())
	}
	return Summarize(scores, groups)
}

func TestRunLoCoMo(t *testing.T) {
	d, err := importer.LoadLoCoMo(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	eng := newFakeEngine()
	var run bytes.Buffer
	var progress [][2]int
	r, err := RunLoCoMo(context.Background(), eng, d, LoCoMoOptions{
		BankPrefix: "t:",
		RunFile:    &run,
		Progress:   func(done, total int) { progress = append(progress, [2]int{done, total}) },
	})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Retains", func(t *testing.T) {
		var items []string
		for _, req := range eng.retains {
			items = append(items, req.BankID+" "+req.ItemID)
		}
		want := []string{"t:tiny-1 tiny-1/session_1", "t:tiny-1 tiny-1/session_2", "t:tiny-1 tiny-1/session_10", "t:tiny-2 tiny-2/session_1"}
		if !reflect.DeepEqual(items, want) {
			t.Errorf("got %q, want %q", items, want)
		}
		at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
		got := eng.retains[0]
		wantReq := memory.RetainRequest{
			BankID: "t:tiny-1", Source: "locomo", ItemID: "tiny-1/session_1", At: at,
			Messages: []memory.Message{
				{ID: "tiny-1/D1:1", Speaker: "Ana", Text: "I adopted a greyhound called Biscuit yesterday!", Time: at},
				{ID: "tiny-1/D1:2", Speaker: "Ben", Text: "Congrats! I went kayaking on the lake on Sunday.", Time: at},
				{ID: "tiny-1/D1:3", Speaker: "Ana", Text: "Here he is on the sofa. (image: a dog lying on a couch)", Time: at},
			},
		}
		if !reflect.DeepEqual(got, wantReq) {
			t.Errorf("got %+v, want %+v", got, wantReq)
		}
	})

	t.Run("Queries", func(t *testing.T) {
		if got, want := len(eng.queries), 7; got != want {
			t.Fatalf("got %d recalls, want %d", got, want)
		}
		now1 := time.Date(2023, 7, 3, 0, 30, 0, 0, time.UTC)
		want := memory.Query{BankID: "t:tiny-1", Text: "What is the name of Ana's greyhound?", Limit: DefaultLoCoMoLimit, Now: now1}
		if got := eng.queries[0]; !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
		if got := eng.queries[6]; got.BankID != "t:tiny-2" || !got.Now.Equal(time.Date(2023, 12, 19, 10, 4, 0, 0, time.UTC)) {
			t.Errorf("tiny-2 query: got %+v", got)
		}
	})

	lines := readRunFile(t, run.Bytes())
	t.Run("RunFile", func(t *testing.T) {
		var ids []string
		for _, l := range lines {
			ids = append(ids, l.QueryID)
		}
		want := []string{"tiny-1/q0", "tiny-1/q1", "tiny-1/q2", "tiny-1/q5", "tiny-1/q6", "tiny-2/q0", "tiny-2/q1"}
		if !reflect.DeepEqual(ids, want) {
			t.Fatalf("got %q, want %q", ids, want)
		}
		// Every memory of the space is listed (fewer than the limit).
		for i, n := range []int{7, 7, 7, 7, 7, 2, 2} {
			if len(lines[i].Ranked) != n {
				t.Errorf("%s: got %d ids, want %d", lines[i].QueryID, len(lines[i].Ranked), n)
			}
		}
		// The fake's BM25 ranking, worked out by hand.
		tops := []struct {
			line int
			want []string
		}{
			{0, []string{"tiny-1/D1:1"}},
			{1, []string{"tiny-1/D2:1", "tiny-1/D10:2"}},
			{2, []string{"tiny-1/D2:2"}},
			{3, []string{"tiny-1/D10:1"}},
			{4, []string{"tiny-1/D1:3", "tiny-1/D10:1", "tiny-1/D1:1", "tiny-1/D2:2"}},
			{5, []string{"tiny-2/D1:1"}},
			{6, []string{"tiny-2/D1:2"}},
		}
		for _, tt := range tops {
			if got := lines[tt.line].Ranked[:len(tt.want)]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: got top %q, want %q", lines[tt.line].QueryID, got, tt.want)
			}
		}
	})

	t.Run("Report", func(t *testing.T) {
		// Every query finds a gold id first and all gold in the top 5,
		// except q6 whose second gold id, D1:1, is third.
		ndcgQ6 := (1 + 1/math.Log2(4)) / (1 + 1/math.Log2(3))
		perfect := QueryScore{Recall5: 1, Recall10: 1, Recall20: 1, Hit5: 1, Hit10: 1, All10: 1, MRR: 1, NDCG10: 1}
		q6 := perfect
		q6.NDCG10 = ndcgQ6
		temporal := perfect
		temporal.NDCG10 = (1 + ndcgQ6) / 2
		overall := perfect
		overall.NDCG10 = (6 + ndcgQ6) / 7

		want := map[string]GroupScore{
			"multi-hop":   {N: 1, QueryScore: perfect},
			"temporal":    {N: 2, QueryScore: temporal},
			"open-domain": {N: 1, QueryScore: perfect},
			"single-hop":  {N: 3, QueryScore: perfect},
		}
		if !approxGroups(r.Categories, want) {
			t.Errorf("categories: got %+v, want %+v", r.Categories, want)
		}
		if !approxGroup(r.Overall, GroupScore{N: 7, QueryScore: overall}) {
			t.Errorf("overall: got %+v, want N 7 %+v", r.Overall, overall)
		}

		// The run file, scored on its own, gives the report.
		gotOverall, gotGroups := rescore(t, d, lines)
		if gotOverall != r.Overall {
			t.Errorf("rescored overall: got %+v, want %+v", gotOverall, r.Overall)
		}
		for name, g := range gotGroups {
			if g != r.Categories[name] {
				t.Errorf("rescored %s: got %+v, want %+v", name, g, r.Categories[name])
			}
		}

		if r.Sessions != 4 || r.Facts != 9 || r.IngestFactsPerSec != perSecond(9, r.IngestTime) {
			t.Errorf("ingest: got %d sessions, %d facts in %v (%v/s)", r.Sessions, r.Facts, r.IngestTime, r.IngestFactsPerSec)
		}
		if r.RecallMS.P50 < 0 || r.RecallMS.P50 > r.RecallMS.P95 || r.RecallMS.P95 > r.RecallMS.P99 {
			t.Errorf("latency: got %+v", r.RecallMS)
		}
		// Every recall is a bank's first or not: the slowest of the two
		// halves is the slowest of all.
		if max(r.FirstRecallMS.P99, r.WarmRecallMS.P99) != r.RecallMS.P99 || r.FirstRecallMS.P50 <= 0 || r.WarmRecallMS.P50 <= 0 {
			t.Errorf("first %+v and warm %+v recalls, of all %+v", r.FirstRecallMS, r.WarmRecallMS, r.RecallMS)
		}
	})

	t.Run("Progress", func(t *testing.T) {
		const total = 4 + 7
		if len(progress) != total {
			t.Fatalf("got %d calls, want %d", len(progress), total)
		}
		for i, p := range progress {
			if p != [2]int{i + 1, total} {
				t.Errorf("call %d: got %v", i, p)
			}
		}
	})

	t.Run("JSON", func(t *testing.T) {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if keys := sortedKeys(got); !reflect.DeepEqual(keys, []string{"categories", "first_recall_ms", "ingest_facts_per_s", "overall", "recall_ms", "warm_recall_ms"}) {
			t.Errorf("top-level keys: got %q", keys)
		}
		groupKeys := []string{"n", "recall@5", "recall@10", "recall@20", "hit@10", "mrr", "ndcg@10"}
		for _, k := range groupKeys {
			if _, ok := got["overall"].(map[string]any)[k]; !ok {
				t.Errorf("overall: no %q", k)
			}
		}
		cats := got["categories"].(map[string]any)
		if keys := sortedKeys(cats); !reflect.DeepEqual(keys, []string{"multi-hop", "open-domain", "single-hop", "temporal"}) {
			t.Errorf("categories: got %q", keys)
		}
		for name, c := range cats {
			for _, k := range groupKeys {
				if _, ok := c.(map[string]any)[k]; !ok {
					t.Errorf("%s: no %q", name, k)
				}
			}
		}
		if keys := sortedKeys(got["recall_ms"].(map[string]any)); !reflect.DeepEqual(keys, []string{"p50", "p95", "p99"}) {
			t.Errorf("recall_ms: got %q", keys)
		}
	})

	t.Run("WriteText", func(t *testing.T) {
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		if len(lines) != 9 {
			t.Fatalf("got %d lines:\n%s", len(lines), b.String())
		}
		for i, prefix := range []string{"category", "multi-hop", "temporal", "open-domain", "single-hop", "overall", "ingest:", "recall:", "recall, each bank's first"} {
			if !strings.HasPrefix(lines[i], prefix) {
				t.Errorf("line %d: got %q, want prefix %q", i, lines[i], prefix)
			}
		}
		if f := strings.Fields(lines[2]); len(f) != 8 || f[1] != "2" || f[2] != "1.0000" {
			t.Errorf("temporal row: got %q", lines[2])
		}
		t.Logf("\n%s", b.String())
	})
}

func TestRunLoCoMo_Err(t *testing.T) {
	d, err := importer.LoadLoCoMo(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("BankExists", func(t *testing.T) {
		eng := newFakeEngine()
		if _, err := eng.CreateBank(context.Background(), "tiny-1"); err != nil {
			t.Fatal(err)
		}
		_, err := RunLoCoMo(context.Background(), eng, d, LoCoMoOptions{})
		if got := memory.ErrorCode(err); got != memory.ECONFLICT {
			t.Errorf("got %v (%s), want %s", err, got, memory.ECONFLICT)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := RunLoCoMo(ctx, newFakeEngine(), d, LoCoMoOptions{}); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})
	t.Run("RunFileWrite", func(t *testing.T) {
		if _, err := RunLoCoMo(context.Background(), newFakeEngine(), d, LoCoMoOptions{RunFile: failWriter{}}); err == nil {
			t.Error("got nil, want an error")
		}
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRankedRefs(t *testing.T) {
	fact := func(ref string) memory.Result { return memory.Result{Fact: &memory.Fact{SourceRef: ref}} }
	tests := []struct {
		name string
		rec  *memory.Recollection
		want []string
	}{
		{"Nil", nil, []string{}},
		{"Empty", &memory.Recollection{}, []string{}},
		{"DedupAndSkip", &memory.Recollection{Results: []memory.Result{
			fact("a"), fact(""), {}, fact("b"), fact("a"), fact("c"),
		}}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RankedRefs(tt.rec); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRunLoCoMo_RefEval runs the fake engine (the protocol's BM25-ref-stop
// baseline) on the dev split and checks that the reference scorer,
// ref_eval.py, scores the run file exactly as the report does, to the 4
// decimals it prints. It also checks the memories against the reference
// export: same ids, order, speakers, texts, captions and timestamps.
func TestRunLoCoMo_RefEval(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dataPath := sharedFile(t, "data", "locomo-dev.json")
	queriesPath := sharedFile(t, "bench", "locomo-dev-queries.jsonl")
	refEval := sharedFile(t, "bench", "ref_eval.py")
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 absent")
	}
	d, err := importer.LoadLoCoMo(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	t.Run("Memories", func(t *testing.T) {
		out, err := exec.Command(python, refEval, "locomo-export", dataPath, dir).CombinedOutput()
		if err != nil {
			t.Fatalf("ref_eval.py locomo-export: %v\n%s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, "locomo_memories.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var got []importer.LoCoMoTurn
		var gotTimes []string
		for _, c := range d.Conversations {
			for _, s := range c.Sessions {
				for _, m := range s.Turns {
					got = append(got, m)
					gotTimes = append(gotTimes, s.Time.Format("2006-01-02T15:04:05"))
				}
			}
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		i := 0
		for ; sc.Scan(); i++ {
			var w struct {
				ID        string `json:"id"`
				DiaID     string `json:"dia_id"`
				Session   int    `json:"session"`
				Turn      int    `json:"turn"`
				Timestamp string `json:"timestamp"`
				Speaker   string `json:"speaker"`
				Text      string `json:"text"`
				Caption   string `json:"image_caption"`
			}
			if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
				t.Fatal(err)
			}
			if i >= len(got) {
				continue
			}
			want := importer.LoCoMoTurn{ID: w.ID, DiaID: w.DiaID, Session: w.Session, Turn: w.Turn, Speaker: w.Speaker, Text: w.Text, Caption: w.Caption}
			if got[i] != want || gotTimes[i] != w.Timestamp {
				t.Errorf("memory %d: got %+v at %s, want %+v at %s", i, got[i], gotTimes[i], want, w.Timestamp)
			}
		}
		if i != len(got) {
			t.Errorf("got %d memories, reference has %d", len(got), i)
		}
	})

	runPath := filepath.Join(dir, "run.jsonl")
	f, err := os.Create(runPath)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunLoCoMo(context.Background(), newFakeEngine(), d, LoCoMoOptions{RunFile: f})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(runPath)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range readRunFile(t, b) {
		if len(l.Ranked) < DefaultLoCoMoLimit {
			t.Fatalf("run line %d (%s): %d ids, want at least %d", i, l.QueryID, len(l.Ranked), DefaultLoCoMoLimit)
		}
	}

	out, err := exec.Command(python, refEval, "score", queriesPath, runPath).CombinedOutput()
	if err != nil {
		t.Fatalf("ref_eval.py score: %v\n%s", err, out)
	}
	ref := parseRefTable(t, string(out))
	if len(ref) != 1+len(evaluatedCategories) {
		t.Fatalf("ref_eval.py printed %d groups, want %d:\n%s", len(ref), 1+len(evaluatedCategories), out)
	}
	for name, want := range ref {
		got := r.Overall
		if name != "ALL" {
			got = r.Categories[name]
		}
		if !matches4(got, want) {
			t.Errorf("%s: got %+v, ref_eval.py %+v", name, got, want)
		}
	}
	t.Logf("ref_eval.py:\n%s", out)

	// The fake engine is the protocol's BM25-ref-stop baseline, so loader
	// and runner together must give the baseline's numbers on the dev split
	// (shared/bench/README.md, 3 decimals; a float tie may move one query).
	const tol = 0.5e-3 + 1.0/760
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"recall@5", r.Overall.Recall5, 0.515},
		{"recall@10", r.Overall.Recall10, 0.577},
		{"recall@20", r.Overall.Recall20, 0.644},
		{"mrr", r.Overall.MRR, 0.433},
		{"multi-hop recall@10", r.Categories["multi-hop"].Recall10, 0.279},
		{"temporal recall@10", r.Categories["temporal"].Recall10, 0.761},
		{"single-hop recall@10", r.Categories["single-hop"].Recall10, 0.641},
		{"open-domain recall@10", r.Categories["open-domain"].Recall10, 0.284},
	} {
		if !approx(c.got, c.want, tol) {
			t.Errorf("BM25-ref-stop baseline %s: got %.4f, want %.3f", c.name, c.got, c.want)
		}
	}
}

// parseRefTable reads ref_eval.py's table: a header "group n recall@5 …"
// and rows "ALL 760 0.5150 …" or "2:temporal 321 …". Groups are keyed by
// category name, and "ALL".
func parseRefTable(t *testing.T, out string) map[string]GroupScore {
	t.Helper()
	rows := strings.Split(strings.TrimSpace(out), "\n")
	header := strings.Fields(rows[0])
	if len(header) < 3 || header[0] != "group" || header[1] != "n" {
		t.Fatalf("ref_eval.py header: %q", rows[0])
	}
	groups := make(map[string]GroupScore)
	for _, row := range rows[1:] {
		f := strings.Fields(row)
		if len(f) != len(header) {
			t.Fatalf("ref_eval.py row: %q", row)
		}
		name := f[0]
		if _, after, ok := strings.Cut(name, ":"); ok {
			name = after
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatal(err)
		}
		g := GroupScore{N: n}
		fields := map[string]*float64{
			"recall@5": &g.Recall5, "recall@10": &g.Recall10, "recall@20": &g.Recall20,
			"hit@5": &g.Hit5, "hit@10": &g.Hit10, "all@10": &g.All10, "mrr": &g.MRR, "ndcg@10": &g.NDCG10,
		}
		for i, col := range header[2:] {
			p, ok := fields[col]
			if !ok {
				t.Fatalf("ref_eval.py column %q unknown", col)
			}
			if *p, err = strconv.ParseFloat(f[i+2], 64); err != nil {
				t.Fatal(err)
			}
		}
		groups[name] = g
	}
	return groups
}

// groupWithin reports whether got and want have the same N and metrics
// within tol of each other.
func groupWithin(got, want GroupScore, tol float64) bool {
	return got.N == want.N &&
		approx(got.Recall5, want.Recall5, tol) && approx(got.Recall10, want.Recall10, tol) &&
		approx(got.Recall20, want.Recall20, tol) && approx(got.Hit5, want.Hit5, tol) &&
		approx(got.Hit10, want.Hit10, tol) && approx(got.All10, want.All10, tol) &&
		approx(got.MRR, want.MRR, tol) && approx(got.NDCG10, want.NDCG10, tol)
}

// matches4 reports whether got rounds to the 4-decimal values of want.
func matches4(got, want GroupScore) bool { return groupWithin(got, want, 0.5e-4+1e-9) }

func approxGroup(got, want GroupScore) bool { return groupWithin(got, want, 1e-12) }

func approxGroups(got, want map[string]GroupScore) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || !approxGroup(g, w) {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func TestSplit(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var out []time.Duration
		for _, v := range n {
			out = append(out, time.Duration(v)*time.Millisecond)
		}
		return out
	}
	first, rest := split(ms(9, 1, 2, 8, 3), []bool{true, false, false, true, false})
	if !slices.Equal(first, ms(9, 8)) || !slices.Equal(rest, ms(1, 2, 3)) {
		t.Errorf("split = %v, %v", first, rest)
	}
	if first, rest := split(nil, nil); first != nil || rest != nil {
		t.Errorf("split of nothing = %v, %v", first, rest)
	}
}

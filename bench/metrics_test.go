package bench

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sharedDir is the project's shared folder (datasets, protocol, reference
// scorer), outside the repository; tests that need it skip without it.
var sharedDir = filepath.Join("..", "..", "shared")

// sharedFile returns the path of a file under shared/, or skips the test
// when it is absent.
func sharedFile(t *testing.T, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{sharedDir}, elem...)...)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s absent", p)
	} else if err != nil {
		t.Fatal(err)
	}
	return p
}

func approx(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestMetrics_Golden(t *testing.T) {
	path := sharedFile(t, "bench", "metrics_golden.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name     string             `json:"name"`
		Ranked   []string           `json:"ranked"`
		Gold     []string           `json:"gold"`
		Expected map[string]float64 `json:"expected"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	fns := map[string]func(ranked, gold []string, k int) float64{
		"recall": Recall, "hit": Hit, "all": All, "ndcg_std": NDCG, "ndcg_lme": NDCGLME,
	}
	checked := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			for name, want := range c.Expected {
				var got float64
				if name == "rr" {
					got = ReciprocalRank(c.Ranked, c.Gold)
				} else {
					fn, ks, ok := strings.Cut(name, "@")
					k, err := strconv.Atoi(ks)
					if !ok || err != nil || fns[fn] == nil {
						t.Fatalf("unknown metric %q", name)
					}
					got = fns[fn](c.Ranked, c.Gold, k)
				}
				if !approx(got, want, 1e-9) {
					t.Errorf("%s: got %.17g, want %.17g", name, got, want)
				}
				checked++
			}
		})
	}
	t.Logf("%d cases, %d values", len(cases), checked)
}

func TestMetrics(t *testing.T) {
	// Hand-computed: log2(3) = 1.5849625007211562, log2(4) = 2.
	const inv3 = 1 / 1.5849625007211562
	tests := []struct {
		name              string
		ranked, gold      []string
		k                 int
		recall, hit, all  float64
		rr, ndcg, ndcgLME float64
	}{
		{
			name: "FirstOfOne", ranked: []string{"a", "b", "c"}, gold: []string{"a"}, k: 3,
			recall: 1, hit: 1, all: 1, rr: 1, ndcg: 1, ndcgLME: 1,
		},
		{
			name: "SecondOfOne", ranked: []string{"x", "a", "b"}, gold: []string{"a"}, k: 3,
			recall: 1, hit: 1, all: 1, rr: 0.5, ndcg: inv3, ndcgLME: 1, // LME weighs ranks 1 and 2 alike
		},
		{
			name: "OneOfTwoInTopK", ranked: []string{"x", "y", "a", "b"}, gold: []string{"a", "b"}, k: 3,
			recall: 0.5, hit: 1, all: 0, rr: 1.0 / 3,
			ndcg:    0.5 / (1 + inv3),             // 1/log2(4) over 1 + 1/log2(3)
			ndcgLME: (0 + (0 + inv3)) / (1 + 1.0), // w(3) = 1/log2(3); ideal w(1)+w(2)
		},
		{
			name: "NoneFound", ranked: []string{"x", "y"}, gold: []string{"a"}, k: 10,
		},
		{
			name: "EmptyRun", ranked: nil, gold: []string{"a", "b"}, k: 5,
		},
		{
			name: "ZeroK", ranked: []string{"a"}, gold: []string{"a"}, k: 0,
			rr: 1, // RR ignores k
		},
		{
			name: "RepeatedGoldCountsOnce", ranked: []string{"a", "x"}, gold: []string{"a", "a"}, k: 1,
			recall: 1, hit: 1, all: 1, rr: 1, ndcg: 1, ndcgLME: 1,
		},
		{
			name: "EmptyGold", ranked: []string{"a"}, gold: nil, k: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []struct {
				name      string
				got, want float64
			}{
				{"recall", Recall(tt.ranked, tt.gold, tt.k), tt.recall},
				{"hit", Hit(tt.ranked, tt.gold, tt.k), tt.hit},
				{"all", All(tt.ranked, tt.gold, tt.k), tt.all},
				{"rr", ReciprocalRank(tt.ranked, tt.gold), tt.rr},
				{"ndcg", NDCG(tt.ranked, tt.gold, tt.k), tt.ndcg},
				{"ndcg_lme", NDCGLME(tt.ranked, tt.gold, tt.k), tt.ndcgLME},
			} {
				if !approx(m.got, m.want, 1e-12) {
					t.Errorf("%s: got %v, want %v", m.name, m.got, m.want)
				}
			}
		})
	}
}

func TestReciprocalRank_Cutoff(t *testing.T) {
	ranked := make([]string, 0, MRRCutoff+1)
	for i := range MRRCutoff + 1 {
		ranked = append(ranked, "n"+strconv.Itoa(i))
	}
	tests := []struct {
		name string
		gold string
		want float64
	}{
		{"AtCutoff", ranked[MRRCutoff-1], 1.0 / MRRCutoff},
		{"BeyondCutoff", ranked[MRRCutoff], 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReciprocalRank(ranked, []string{tt.gold}); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDedup(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{nil, []string{}},
		{[]string{"a", "b", "a", "c", "b"}, []string{"a", "b", "c"}},
		{[]string{"a", "a", "a"}, []string{"a"}},
	}
	for _, tt := range tests {
		if got := Dedup(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Dedup(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestScoreQuery(t *testing.T) {
	// The repeated "x" must not push "a" to rank 3: the run is
	// deduplicated first, so "a" is second.
	got := ScoreQuery([]string{"x", "x", "a", "b"}, []string{"a", "b"})
	want := QueryScore{
		Recall5: 1, Recall10: 1, Recall20: 1, Hit5: 1, Hit10: 1, All10: 1,
		MRR:    0.5,
		NDCG10: (1/math.Log2(3) + 1/math.Log2(4)) / (1 + 1/math.Log2(3)),
	}
	if !approx(got.NDCG10, want.NDCG10, 1e-12) {
		t.Errorf("NDCG10: got %v, want %v", got.NDCG10, want.NDCG10)
	}
	got.NDCG10 = want.NDCG10
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestSummarize(t *testing.T) {
	scores := []QueryScore{{Recall5: 1, MRR: 1}, {Recall5: 0, MRR: 0.5}, {Recall5: 0.5, MRR: 0.25}}
	groups := []string{"a", "a", "b"}
	overall, by := Summarize(scores, groups)

	// Micro average: over all three queries, not the mean of group means.
	if got, want := overall, (GroupScore{N: 3, QueryScore: QueryScore{Recall5: 0.5, MRR: 1.75 / 3}}); got != want {
		t.Errorf("overall: got %+v, want %+v", got, want)
	}
	want := map[string]GroupScore{
		"a": {N: 2, QueryScore: QueryScore{Recall5: 0.5, MRR: 0.75}},
		"b": {N: 1, QueryScore: QueryScore{Recall5: 0.5, MRR: 0.25}},
	}
	if !reflect.DeepEqual(by, want) {
		t.Errorf("groups: got %+v, want %+v", by, want)
	}
}

func TestMean_Empty(t *testing.T) {
	got := Mean(nil)
	if got != (GroupScore{}) {
		t.Errorf("got %+v, want zero", got)
	}
	if _, err := json.Marshal(got); err != nil { // no NaN
		t.Error(err)
	}
}

func TestGroupScore_JSON(t *testing.T) {
	b, err := json.Marshal(GroupScore{N: 2, QueryScore: QueryScore{Recall5: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	got, want := string(b), `{"n":2,"recall@5":0.5,"recall@10":0,"recall@20":0,"hit@5":0,"hit@10":0,"all@10":0,"mrr":0,"ndcg@10":0}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestPercentiles(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100..1, unsorted
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Latency
	}{
		{"Empty", nil, Latency{}},
		{"One", ms(7), Latency{7, 7, 7}},
		{"Two", ms(9, 3), Latency{3, 9, 9}},              // ⌈0.5·2⌉ = 1st, ⌈0.95·2⌉ = 2nd
		{"Hundred", ms(hundred...), Latency{50, 95, 99}}, // nearest rank = value
		{"Sub-millisecond", []time.Duration{1500 * time.Microsecond}, Latency{1.5, 1.5, 1.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]time.Duration(nil), tt.in...)
			if got := Percentiles(tt.in); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !reflect.DeepEqual(in, tt.in) && tt.in != nil {
				t.Error("input was modified")
			}
		})
	}
}

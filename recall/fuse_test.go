package recall

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

func hits(ids ...string) []memory.Hit {
	out := make([]memory.Hit, len(ids))
	for i, id := range ids {
		out[i] = memory.Hit{ID: id, Score: float64(100 - i)}
	}
	return out
}

func candidateIDs(cs []candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.id
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestFuse(t *testing.T) {
	const k = 60.0
	sem := ranking{name: memory.StrategySemantic, weight: 0.1, hits: hits("a", "b", "c")}
	key := ranking{name: memory.StrategyKeyword, weight: 1.0, hits: hits("c", "a")}
	got := fuse([]ranking{sem, key}, k)

	// score(f) = Σ_s w_s / (k + rank_s(f)), ranks 1-based.
	want := map[string]float64{
		"a": 0.1/(k+1) + 1.0/(k+2),
		"b": 0.1 / (k + 2),
		"c": 0.1/(k+3) + 1.0/(k+1),
	}
	if ids := candidateIDs(got); !slices.Equal(ids, []string{"c", "a", "b"}) {
		t.Fatalf("order = %q, want [c a b]", ids)
	}
	for _, c := range got {
		if !near(c.score, want[c.id]) {
			t.Errorf("score(%s) = %.15g, want %.15g", c.id, c.score, want[c.id])
		}
	}
	wantExplain := map[string]map[string]memory.StrategyScore{
		"a": {memory.StrategySemantic: {Rank: 1, Score: 100}, memory.StrategyKeyword: {Rank: 2, Score: 99}},
		"b": {memory.StrategySemantic: {Rank: 2, Score: 99}},
		"c": {memory.StrategySemantic: {Rank: 3, Score: 98}, memory.StrategyKeyword: {Rank: 1, Score: 100}},
	}
	for _, c := range got {
		w := wantExplain[c.id]
		if len(c.explain) != len(w) {
			t.Errorf("explain(%s) = %v, want %v", c.id, c.explain, w)
			continue
		}
		for s, ss := range w {
			if c.explain[s] != ss {
				t.Errorf("explain(%s)[%s] = %+v, want %+v", c.id, s, c.explain[s], ss)
			}
		}
	}
}

func TestFuse_K(t *testing.T) {
	// With a smaller k the top rank matters more: the same rankings give
	// other scores, still Σ w/(k+rank).
	for _, k := range []float64{1, 10, 60, 1000} {
		got := fuse([]ranking{{name: memory.StrategyKeyword, weight: 0.5, hits: hits("x", "y")}, {name: memory.StrategyGraph, weight: 0.3, hits: hits("y")}}, k)
		want := map[string]float64{"x": 0.5 / (k + 1), "y": 0.5/(k+2) + 0.3/(k+1)}
		for _, c := range got {
			if !near(c.score, want[c.id]) {
				t.Errorf("k=%g: score(%s) = %g, want %g", k, c.id, c.score, want[c.id])
			}
		}
	}
}

func TestFuse_ZeroWeight(t *testing.T) {
	got := fuse([]ranking{
		{name: memory.StrategySemantic, weight: 0, hits: hits("only-off")},
		{name: memory.StrategyKeyword, weight: 1, hits: hits("a")},
		{name: memory.StrategyTemporal, weight: -1, hits: hits("a", "negative")},
	}, DefaultRRFK)
	if ids := candidateIDs(got); !slices.Equal(ids, []string{"a"}) {
		t.Fatalf("candidates = %q, want [a]: strategies of weight ≤ 0 are off", ids)
	}
	if _, ok := got[0].explain[memory.StrategySemantic]; ok {
		t.Errorf("explain has a strategy that is off: %v", got[0].explain)
	}
	if !near(got[0].score, 1.0/(DefaultRRFK+1)) {
		t.Errorf("score = %g, want %g", got[0].score, 1.0/(DefaultRRFK+1))
	}
}

// A fact listed twice by one strategy counts once, at its better rank.
func TestFuse_RepeatedHit(t *testing.T) {
	got := fuse([]ranking{{name: memory.StrategyGraph, weight: 1, hits: hits("a", "b", "a")}}, DefaultRRFK)
	if len(got) != 2 {
		t.Fatalf("%d candidates, want 2", len(got))
	}
	for _, c := range got {
		if c.id == "a" {
			if !near(c.score, 1.0/(DefaultRRFK+1)) || c.explain[memory.StrategyGraph].Rank != 1 {
				t.Errorf("a: score %g rank %d, want %g at rank 1", c.score, c.explain[memory.StrategyGraph].Rank, 1.0/(DefaultRRFK+1))
			}
		}
	}
}

func TestFuse_Ties(t *testing.T) {
	// "b" and "c" tie on score (each first in one strategy of equal
	// weight); "a" ties with "d" (second in one each). Ties go to the
	// better best rank, then to the id.
	got := fuse([]ranking{
		{name: memory.StrategySemantic, weight: 1, hits: hits("c", "d")},
		{name: memory.StrategyKeyword, weight: 1, hits: hits("b", "a")},
	}, DefaultRRFK)
	if ids := candidateIDs(got); !slices.Equal(ids, []string{"b", "c", "a", "d"}) {
		t.Errorf("order = %q, want [b c a d]", ids)
	}
	// Equal scores from different ranks: 61/(60+1) = 62/(60+2) = 1. The
	// better best rank wins, whatever the ids say.
	got = fuse([]ranking{
		{name: memory.StrategySemantic, weight: 61, hits: hits("z-first")},
		{name: memory.StrategyKeyword, weight: 62, hits: hits("m", "a-second")},
	}, 60)
	if got[1].score != got[2].score {
		t.Fatalf("scores %g and %g, want a tie", got[1].score, got[2].score)
	}
	if ids := candidateIDs(got); !slices.Equal(ids, []string{"m", "z-first", "a-second"}) {
		t.Errorf("order = %q, want [m z-first a-second]", ids)
	}
	if got := fuse(nil, DefaultRRFK); len(got) != 0 {
		t.Errorf("fuse of nothing = %v", got)
	}
}

func TestReachable(t *testing.T) {
	mk := func(scores ...float64) []candidate {
		out := make([]candidate, len(scores))
		for i, s := range scores {
			out[i] = candidate{id: string(rune('a' + i)), score: s}
		}
		return out
	}
	t.Run("Cut", func(t *testing.T) {
		fused := mk(1.0, 0.99, 0.95, 0.99/maxBoost, 0.5, 0.1)
		got := reachable(fused, 2)
		// 0.95·maxBoost and (0.99/maxBoost)·maxBoost reach 0.99; 0.5 cannot.
		if ids := candidateIDs(got); !slices.Equal(ids, []string{"a", "b", "c", "d"}) {
			t.Errorf("reachable = %q, want [a b c d]", ids)
		}
	})
	t.Run("Equal", func(t *testing.T) {
		// A candidate whose best boost only ties the limit-th score may
		// still win the tie: it is kept.
		fused := mk(1.0, 0.5*maxBoost, 0.5, 0.4)
		if ids := candidateIDs(reachable(fused, 2)); !slices.Equal(ids, []string{"a", "b", "c"}) {
			t.Errorf("reachable = %q, want [a b c]", ids)
		}
	})
	t.Run("Short", func(t *testing.T) {
		fused := mk(0.3, 0.2)
		if got := reachable(fused, 5); len(got) != 2 {
			t.Errorf("reachable of fewer than limit = %d candidates, want all 2", len(got))
		}
		if got := reachable(fused, 2); len(got) != 2 {
			t.Errorf("reachable of exactly limit = %d candidates, want 2", len(got))
		}
	})
	t.Run("Property", func(t *testing.T) {
		// Whatever boosts in [1, maxBoost] the facts get, the boosted top
		// limit lies within what reachable kept.
		r := rand.New(rand.NewPCG(1, 2))
		for trial := 0; trial < 500; trial++ {
			n := 1 + r.IntN(40)
			scores := make([]float64, n)
			for i := range scores {
				scores[i] = r.Float64()
			}
			sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
			fused := mk(scores...)
			limit := 1 + r.IntN(n)
			kept := reachable(fused, limit)
			if len(kept) < limit || !slices.Equal(candidateIDs(kept), candidateIDs(fused[:len(kept)])) {
				t.Fatalf("reachable(%v, %d) = %d candidates, not a prefix of at least limit", scores, limit, len(kept))
			}
			boosted := make([]candidate, n)
			for i, c := range fused {
				c.score *= 1 + (maxBoost-1)*r.Float64()
				boosted[i] = c
			}
			sort.SliceStable(boosted, func(i, j int) bool { return boosted[i].score > boosted[j].score })
			keptIDs := candidateIDs(kept)
			for _, c := range boosted[:limit] {
				if !slices.Contains(keptIDs, c.id) {
					t.Fatalf("boosted top %d holds %s (score %g), which reachable cut", limit, c.id, c.score)
				}
			}
		}
	})
}

func TestBoost(t *testing.T) {
	now := time.Date(2023, 5, 8, 12, 0, 0, 0, time.UTC)
	hoursAgo := func(h float64) time.Time { return now.Add(-time.Duration(h * float64(time.Hour))) }

	t.Run("Formula", func(t *testing.T) {
		f := &memory.Fact{CreatedAt: hoursAgo(500), LastAccessed: hoursAgo(72), AccessCount: 2, ReinforcementCount: 1, OccurredStart: hoursAgo(36)}
		// 1 + b·0.99^(72/(1+2+1)) + b·exp(-36/72)
		want := 1 + DefaultBoost*math.Pow(0.99, 72.0/4) + DefaultBoost*math.Exp(-0.5)
		if got := boost(f, now); !near(got, want) {
			t.Errorf("boost = %.15g, want %.15g", got, want)
		}
	})
	t.Run("Fresh", func(t *testing.T) {
		f := &memory.Fact{CreatedAt: now, OccurredStart: now}
		if got, want := boost(f, now), 1+2*DefaultBoost; !near(got, want) {
			t.Errorf("boost of a fact created and happened now = %g, want %g", got, want)
		}
		if got := boost(f, now); !near(got, maxBoost) {
			t.Errorf("boost of a fresh fact = %g, want maxBoost %g", got, maxBoost)
		}
	})
	t.Run("Unknown", func(t *testing.T) {
		if got := boost(&memory.Fact{}, now); got != 1 {
			t.Errorf("boost of a fact with no times = %g, want 1", got)
		}
	})
	t.Run("Future", func(t *testing.T) {
		// An event after now (a plan) is as recent as can be, not more.
		f := &memory.Fact{CreatedAt: now, OccurredStart: now.Add(48 * time.Hour)}
		if got := boost(f, now); got > maxBoost || !near(got, maxBoost) {
			t.Errorf("boost of a future event = %g, want %g", got, maxBoost)
		}
	})
	t.Run("Bounds", func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 2000; i++ {
			f := &memory.Fact{
				CreatedAt:          hoursAgo(r.Float64() * 1e5),
				AccessCount:        r.IntN(100),
				ReinforcementCount: r.IntN(10),
				OccurredStart:      hoursAgo(r.Float64()*2e5 - 1e3),
			}
			if r.IntN(2) == 0 {
				f.LastAccessed = hoursAgo(r.Float64() * 1e4)
			}
			if r.IntN(5) == 0 {
				f.OccurredStart = time.Time{}
			}
			if got := boost(f, now); got < 1 || got > 1+2*DefaultBoost || math.IsNaN(got) {
				t.Fatalf("boost(%+v) = %g, out of [1, %g]", f, got, 1+2*DefaultBoost)
			}
		}
	})
	t.Run("MonotoneInAccessAge", func(t *testing.T) {
		prev := math.Inf(1)
		for _, h := range []float64{0, 1, 10, 100, 1000, 10000} {
			f := &memory.Fact{CreatedAt: hoursAgo(20000), LastAccessed: hoursAgo(h), OccurredStart: hoursAgo(20000)}
			got := boost(f, now)
			if got >= prev {
				t.Errorf("boost with last access %gh ago = %g, not below %g", h, got, prev)
			}
			prev = got
		}
	})
	t.Run("MonotoneInEventAge", func(t *testing.T) {
		prev := math.Inf(1)
		for _, h := range []float64{0, 6, 24, 72, 240, 1000} {
			f := &memory.Fact{CreatedAt: hoursAgo(20000), OccurredStart: hoursAgo(h)}
			got := boost(f, now)
			if got >= prev {
				t.Errorf("boost with event %gh ago = %g, not below %g", h, got, prev)
			}
			prev = got
		}
	})
	t.Run("StrengthSlowsDecay", func(t *testing.T) {
		prev := 0.0
		for _, n := range []int{0, 1, 5, 50} {
			f := &memory.Fact{LastAccessed: hoursAgo(500), AccessCount: n}
			got := boost(f, now)
			if got <= prev {
				t.Errorf("boost with %d accesses = %g, not above %g", n, got, prev)
			}
			prev = got
		}
		// Reinforcement strengthens like access.
		a := boost(&memory.Fact{LastAccessed: hoursAgo(500), AccessCount: 3}, now)
		b := boost(&memory.Fact{LastAccessed: hoursAgo(500), ReinforcementCount: 3}, now)
		if !near(a, b) {
			t.Errorf("3 accesses boost %g, 3 reinforcements %g; want equal", a, b)
		}
	})
	t.Run("ClockMovesOn", func(t *testing.T) {
		// Living 120 days in a millisecond: the same fact's boost falls
		// as the clock advances, towards 1.
		f := &memory.Fact{CreatedAt: now, OccurredStart: now}
		prev := math.Inf(1)
		for d := 0; d <= 120; d += 10 {
			got := boost(f, now.AddDate(0, 0, d))
			if got >= prev {
				t.Errorf("boost %d days on = %g, not below %g", d, got, prev)
			}
			prev = got
		}
		if prev > 1+DefaultBoost*0.01 {
			t.Errorf("boost 120 days on = %g, want ≈ 1", prev)
		}
	})
	t.Run("EventTimeFallback", func(t *testing.T) {
		// Without OccurredStart the recency counts from MentionedAt.
		a := boost(&memory.Fact{MentionedAt: hoursAgo(10)}, now)
		b := boost(&memory.Fact{OccurredStart: hoursAgo(10)}, now)
		if !near(a, b) || a <= 1 {
			t.Errorf("boost by MentionedAt = %g, by OccurredStart = %g; want equal and above 1", a, b)
		}
	})
}

func TestNameCandidates(t *testing.T) {
	words := lex.Words("What did Melanie paint at Lake Tahoe?")
	got := nameCandidates(words)
	want := []string{
		"melanie", "paint", "lake", "tahoe",
		"what did", "did melanie", "melanie paint", "paint at", "at lake", "lake tahoe",
		"what did melanie", "did melanie paint", "melanie paint at", "paint at lake", "at lake tahoe",
	}
	if !slices.Equal(got, want) {
		t.Errorf("nameCandidates = %q,\nwant %q", got, want)
	}
	// Every candidate is already normalised, so it matches stored names.
	for _, c := range got {
		if memory.NormalizeName(c) != c {
			t.Errorf("candidate %q is not normalised (%q)", c, memory.NormalizeName(c))
		}
	}
	// Names as stored are found among the candidates of a query naming them.
	for _, tt := range []struct{ query, name string }{
		{"Did Mel's painting of Lake Tahoe sell?", "Mel's"},
		{"Did Mel's painting of Lake Tahoe sell?", "Lake Tahoe"},
		{"when did Caroline go to the LGBTQ support group", "LGBTQ support group"},
		{"Tell me about the New York City trip", "New York City"},
	} {
		if c := nameCandidates(lex.Words(tt.query)); !slices.Contains(c, memory.NormalizeName(tt.name)) {
			t.Errorf("candidates of %q = %q, missing %q", tt.query, c, memory.NormalizeName(tt.name))
		}
	}
	if got := nameCandidates(nil); len(got) != 0 {
		t.Errorf("nameCandidates(nil) = %q", got)
	}
	if got := nameCandidates([]string{"the", "of"}); !slices.Equal(got, []string{"the of"}) {
		t.Errorf("nameCandidates of stopwords = %q, want only the bigram", got)
	}
}

func TestSortResults(t *testing.T) {
	rs := []memory.Result{
		{Fact: &memory.Fact{ID: "late", Seq: 9}, Score: 0.5},
		{Fact: &memory.Fact{ID: "best", Seq: 5}, Score: 0.9},
		{Fact: &memory.Fact{ID: "early", Seq: 2}, Score: 0.5},
	}
	sortResults(rs)
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.Fact.ID)
	}
	if !slices.Equal(ids, []string{"best", "early", "late"}) {
		t.Errorf("order = %q, want [best early late]", ids)
	}
}

func TestEntityIDF(t *testing.T) {
	if got := entityIDF(1); got != 1 {
		t.Errorf("entityIDF(1) = %g, want 1", got)
	}
	if got := entityIDF(0); got != 1 {
		t.Errorf("entityIDF(0) = %g, want 1", got)
	}
	prev := 1.0
	for _, n := range []int{2, 3, 10, 100, 10000} {
		got := entityIDF(n)
		if want := 1 / (1 + math.Log(float64(n))); !near(got, want) {
			t.Errorf("entityIDF(%d) = %g, want %g", n, got, want)
		}
		if got >= prev || got <= 0 {
			t.Errorf("entityIDF(%d) = %g, not in (0, %g)", n, got, prev)
		}
		prev = got
	}
}

func TestTimeBounds(t *testing.T) {
	a := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	b := a.AddDate(0, 1, 0)
	var zero time.Time
	for _, tt := range []struct {
		name      string
		got, want time.Time
	}{
		{"laterOf(a, b)", laterOf(a, b), b},
		{"laterOf(b, a)", laterOf(b, a), b},
		{"laterOf(zero, a)", laterOf(zero, a), a},
		{"laterOf(a, zero)", laterOf(a, zero), a},
		{"earlierOf(a, b)", earlierOf(a, b), a},
		{"earlierOf(b, a)", earlierOf(b, a), a},
		{"earlierOf(zero, a)", earlierOf(zero, a), a},
		{"earlierOf(a, zero)", earlierOf(a, zero), a},
		{"earlierOf(zero, zero)", earlierOf(zero, zero), zero},
	} {
		if !tt.got.Equal(tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestCutWeak(t *testing.T) {
	hs := []memory.Hit{{ID: "a", Score: 4}, {ID: "b", Score: 2.5}, {ID: "c", Score: 2}, {ID: "d", Score: 1.99}, {ID: "e", Score: 0.5}}
	ids := func(hs []memory.Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	for _, tt := range []struct {
		floor float64
		want  []string
	}{
		{0, []string{"a", "b", "c", "d", "e"}},
		{-1, []string{"a", "b", "c", "d", "e"}},
		{0.5, []string{"a", "b", "c"}}, // 2 = 0.5·4 stays
		{0.6, []string{"a", "b"}},
		{1, []string{"a"}},
	} {
		if got := ids(cutWeak(slices.Clone(hs), tt.floor)); !slices.Equal(got, tt.want) {
			t.Errorf("cutWeak(floor %g) = %q, want %q", tt.floor, got, tt.want)
		}
	}
	if got := cutWeak(nil, 0.5); len(got) != 0 {
		t.Errorf("cutWeak(nil) = %v", got)
	}
}

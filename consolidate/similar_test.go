package consolidate

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
)

// fakeSimilarStore is fakeMergeStore with the built-in embedder's
// vectors, a brute-force vector search over the active facts, verdicts
// and groups: the reference the passes are tested against directly.
type fakeSimilarStore struct {
	fakeMergeStore
	verdicts map[memory.FactPair]memory.PairVerdict
	groups   []*memory.FactGroup
	conflict bool // GroupFacts answers ECONFLICT
}

var testEmbedder = hashembed.New(hashembed.DefaultDimension)

// put adds a fact with its vector, of kind world unless day is set
// (then an experience of that day), created at created.
func (s *fakeSimilarStore) put(t *testing.T, id, speaker, text string, day int, created time.Time) *memory.Fact {
	t.Helper()
	s.add(id, speaker, text, 0)
	f := s.facts[len(s.facts)-1]
	f.Kind, f.CreatedAt = memory.KindWorld, created
	if day > 0 {
		f.Kind, f.OccurredStart = memory.KindExperience, time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC)
	}
	vecs, err := testEmbedder.Embed(context.Background(), []string{f.Body()})
	if err != nil {
		t.Fatal(err)
	}
	f.Embedding = vecs[0]
	return f
}

func (s *fakeSimilarStore) byID(id string) *memory.Fact {
	for _, f := range s.facts {
		if f.ID == id {
			return f
		}
	}
	return nil
}

func (s *fakeSimilarStore) Facts(_ context.Context, _ string, ids []string) ([]*memory.Fact, error) {
	var out []*memory.Fact
	for _, id := range ids {
		if f := s.byID(id); f != nil {
			c := *f
			c.Embedding = nil
			out = append(out, &c)
		}
	}
	return out, nil
}

func (s *fakeSimilarStore) FactEmbeddings(_ context.Context, _ string, ids []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	for _, id := range ids {
		if f := s.byID(id); f != nil && f.Embedding != nil {
			out[id] = f.Embedding
		}
	}
	return out, nil
}

func (s *fakeSimilarStore) SearchVector(_ context.Context, _ string, vec []float32, k int, _ memory.Filter) ([]memory.Hit, error) {
	var hits []memory.Hit
	for _, f := range s.facts {
		if f.Status == memory.StatusActive && f.Embedding != nil {
			hits = append(hits, memory.Hit{ID: f.ID, Score: vecCosine(vec, f.Embedding)})
		}
	}
	slices.SortStableFunc(hits, func(a, b memory.Hit) int { return cmp.Compare(b.Score, a.Score) })
	return hits[:min(k, len(hits))], nil
}

func (s *fakeSimilarStore) SavePairVerdicts(_ context.Context, _ string, vs []memory.PairVerdict) error {
	if s.verdicts == nil {
		s.verdicts = map[memory.FactPair]memory.PairVerdict{}
	}
	for _, v := range vs {
		if err := memory.CheckPairVerdict(v); err != nil {
			return err
		}
		s.verdicts[v.Pair] = v
	}
	return nil
}

func (s *fakeSimilarStore) PairVerdicts(_ context.Context, _ string, ps []memory.FactPair) (map[memory.FactPair]memory.PairVerdict, error) {
	out := map[memory.FactPair]memory.PairVerdict{}
	for _, p := range ps {
		if v, ok := s.verdicts[p]; ok {
			out[p] = v
		}
	}
	return out, nil
}

func (s *fakeSimilarStore) GroupFacts(_ context.Context, _ string, g *memory.FactGroup) error {
	if err := memory.CheckGroup(g); err != nil {
		return err
	}
	if s.conflict {
		return memory.Errorf(memory.ECONFLICT, "changed")
	}
	for _, id := range g.Members {
		if f := s.byID(id); f == nil || f.Status != memory.StatusActive {
			return memory.Errorf(memory.ECONFLICT, "fact %s", id)
		}
	}
	for _, id := range g.Members {
		f := s.byID(id)
		f.Status, f.SupersededBy = memory.StatusSuperseded, g.Summary.ID
	}
	c := *g.Summary
	c.Seq = int64(len(s.facts) + 1)
	s.facts = append(s.facts, &c)
	s.groups = append(s.groups, g)
	return nil
}

// birthday is a long sentence said twice by one speaker, the second time
// without "total" and a comma: the near-exact case measured in the BEAM
// dev set.
const birthday = "Got it! The events in the birthday paradox aren't mutually exclusive because multiple pairs can share the same birthday. That's why the probability is higher, and we use the complement method to calculate it accurately. Makes total sense now!"

var birthdayAgain = strings.NewReplacer("total ", "", "higher,", "higher").Replace(birthday)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// Offline: the same fact said twice with a filler dropped merges; the
// same words with another number, another speaker or about another day
// never do.
func TestMergeSimilar_NearExact(t *testing.T) {
	s := &fakeSimilarStore{}
	s.put(t, "a", "Ann", birthday, 0, t0)
	s.put(t, "b", "Ann", birthdayAgain, 0, t0.Add(time.Minute))
	s.put(t, "c", "Bob", birthday, 0, t0)                                       // another speaker
	s.put(t, "d", "Ann", strings.Replace(birthday, "two", "2", 1)+" 23", 0, t0) // a number more
	s.put(t, "p40", "Ann", "Alex paid $40 for the tickets to the jazz concert in Lisbon on Friday evening, booked through the festival website after comparing seats, parking, restaurants and hotels near the venue, then told the whole family about the programme, the musicians and the late train home", 0, t0)
	s.put(t, "p45", "Ann", "Alex paid $45 for the tickets to the jazz concert in Lisbon on Friday evening, booked through the festival website after comparing seats, parking, restaurants and hotels near the venue, then told the whole family about the programme, the musicians and the late train home", 0, t0)
	s.put(t, "run1", "Ann", "I went running along the river before breakfast with my sister", 1, t0)
	s.put(t, "run2", "Ann", "I went running along the river before breakfast with my sister!", 2, t0)
	res, err := MergeSimilar(t.Context(), s, "b", SimilarOptions{PageSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]string{{"a", "b"}}; !slices.Equal(s.merges, want) {
		t.Errorf("merges: got %v, want %v (b is newer: the keeper)", s.merges, want)
	}
	if res.NearExact != 1 || res.Asked != 0 || res.Candidates == 0 {
		t.Errorf("result: got %+v, want 1 near-exact, some candidates, none asked (no LLM)", res)
	}
	if c := vecCosine(s.byID("p40").Embedding, s.byID("p45").Embedding); c < DefaultNearExactCosine {
		t.Errorf("the $40/$45 pair has cosine %.3f: the test wants it above the near-exact line %.2f", c, DefaultNearExactCosine)
	}
	again, err := MergeSimilar(t.Context(), s, "b", SimilarOptions{})
	if err != nil || again.NearExact != 0 || len(s.merges) != 1 {
		t.Errorf("second run: %+v, %v; want nothing merged", again, err)
	}
}

// With an LLM: "same" merges by the keeper rule, "different" is
// remembered and never asked again, a malformed answer is counted as
// failed and asked again next run.
func TestMergeSimilar_LLM(t *testing.T) {
	s := &fakeSimilarStore{}
	s.put(t, "f1", "Ann", "Alice joined the backend team in March after three years leading the mobile app, mentoring interns and shipping the offline sync feature", 0, t0)
	s.put(t, "f2", "Ann", "In March Alice joined the backend team after three years leading the mobile app, mentoring interns and shipping the offline sync feature", 0, t0.Add(time.Minute))
	s.put(t, "f3", "Ann", "Alice left the backend team in March after three years leading the mobile app, mentoring interns and shipping the offline sync feature", 0, t0.Add(2*time.Minute))
	s.refs = []memory.EntityRef{{FactID: "f1", EntityID: "alice"}, {FactID: "f1", EntityID: "backend"}}
	broken := true
	llm := Script(func(req *memory.ChatRequest) (any, error) {
		if req.Schema == nil || req.Schema.Name != "fact_merge" || req.Stage != StageMerge {
			return nil, errors.New("unexpected request")
		}
		if broken {
			return map[string]any{"nothing": true}, nil
		}
		var vs []map[string]string
		for _, line := range strings.Split(req.Messages[0].Content, "\n") {
			id, text, ok := strings.Cut(line, ": ")
			if !ok || id == "FACT" || id == "CANDIDATES" {
				continue
			}
			v := "different"
			fact, _, _ := strings.Cut(req.Messages[0].Content, "\n")
			if strings.Contains(text, "joined") && strings.Contains(fact, "joined") {
				v = "same" // the two "joined" facts; "left" is another fact
			}
			vs = append(vs, map[string]string{"candidate": id, "verdict": v})
		}
		return map[string]any{"verdicts": vs}, nil
	})
	for _, pair := range [][2]string{{"f1", "f2"}, {"f1", "f3"}, {"f2", "f3"}} {
		if c := vecCosine(s.byID(pair[0]).Embedding, s.byID(pair[1]).Embedding); c < DefaultMergeLLMCosine {
			t.Fatalf("cosine(%s, %s) = %.3f: the test wants it above %.2f", pair[0], pair[1], c, DefaultMergeLLMCosine)
		}
	}
	// Malformed answers: every asked pair fails, nothing is merged or
	// remembered.
	res, err := MergeSimilar(t.Context(), s, "b", SimilarOptions{LLM: llm})
	if err != nil {
		t.Fatal(err)
	}
	if res.Asked == 0 || res.Failed != res.Asked || res.Merged != 0 || len(s.merges) != 0 || len(s.verdicts) != 0 {
		t.Fatalf("malformed answers: got %+v, merges %v, verdicts %v; want every asked pair failed", res, s.merges, s.verdicts)
	}
	broken = false
	llm.Reset()
	res, err = MergeSimilar(t.Context(), s, "b", SimilarOptions{LLM: llm})
	if err != nil {
		t.Fatal(err)
	}
	// f1 (two refs) keeps its place; f2 merges into it; f3 is different
	// from each.
	if want := [][2]string{{"f2", "f1"}}; !slices.Equal(s.merges, want) {
		t.Errorf("merges: got %v, want %v", s.merges, want)
	}
	if res.Merged != 1 || res.Different == 0 || res.Failed != 0 {
		t.Errorf("result: got %+v, want 1 merged, some different, none failed", res)
	}
	if _, ok := s.verdicts[memory.NewFactPair("f1", "f3")]; !ok {
		t.Errorf("verdicts: got %v, want (f1, f3) remembered as different", s.verdicts)
	}
	asked := llm.Calls()
	res, err = MergeSimilar(t.Context(), s, "b", SimilarOptions{LLM: llm})
	if err != nil {
		t.Fatal(err)
	}
	if llm.Calls() != asked || res.Asked != 0 || res.Remembered == 0 {
		t.Errorf("third run: %d new calls, result %+v; want none asked, the verdicts remembered", llm.Calls()-asked, res)
	}
}

// Since: only facts created since are walked; their older neighbours
// are still found.
func TestMergeSimilar_Since(t *testing.T) {
	s := &fakeSimilarStore{}
	s.put(t, "old", "Ann", birthday, 0, t0)
	s.put(t, "old2", "Ann", birthday+" Thanks", 0, t0)
	s.put(t, "new", "Ann", birthdayAgain, 0, t0.Add(time.Hour))
	res, err := MergeSimilar(t.Context(), s, "b", SimilarOptions{Since: t0.Add(time.Minute), PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Searched != 1 || !slices.Equal(s.merges, [][2]string{{"old", "new"}}) {
		t.Errorf("got %+v, merges %v; want only the new fact searched and the old one merged into it", res, s.merges)
	}
}

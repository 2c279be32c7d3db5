package consolidate_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// standingFake is a StandingStore over maps.
type standingFake struct {
	qs    []*memory.StandingQuestion
	facts map[string]*memory.Fact
	obs   map[string]*memory.Observation
	// unpin, when set, is unpinned when its answer is about to be set.
	unpin string
}

func (s *standingFake) StandingQuestions(context.Context, string) ([]*memory.StandingQuestion, error) {
	var out []*memory.StandingQuestion
	for _, q := range s.qs {
		c := *q
		out = append(out, &c)
	}
	return out, nil
}

func (s *standingFake) SetStandingAnswer(_ context.Context, bank, id, answer string, ids []string, at time.Time) error {
	if id == s.unpin {
		return memory.Errorf(memory.ENOTFOUND, "no pinned question %s", id)
	}
	for _, q := range s.qs {
		if q.ID == id {
			q.Answer, q.MemoryIDs, q.AnsweredAt = answer, ids, at
			return nil
		}
	}
	return memory.Errorf(memory.ENOTFOUND, "no pinned question %s", id)
}

func (s *standingFake) Facts(_ context.Context, _ string, ids []string) ([]*memory.Fact, error) {
	var out []*memory.Fact
	for _, id := range ids {
		if f, ok := s.facts[id]; ok {
			out = append(out, f)
		}
	}
	return out, nil
}

func (s *standingFake) Observations(_ context.Context, _ string, ids []string) ([]*memory.Observation, error) {
	var out []*memory.Observation
	for _, id := range ids {
		if o, ok := s.obs[id]; ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// TestStanding: only the questions whose evidence changed are answered
// again — never answered, a fact superseded, an observation changed or
// archived, a memory forgotten, a newer fact recalled for the question;
// the others make no call. A question unpinned meanwhile stays
// unpinned; a failed answer leaves the others answered and is returned.
func TestStanding(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(48 * time.Hour)
	answered := func(id string, ids ...string) *memory.StandingQuestion {
		return &memory.StandingQuestion{ID: id, BankID: "b", Question: "Q " + id + "?", Answer: "old " + id, MemoryIDs: ids, AnsweredAt: t0, CreatedAt: t0}
	}
	st := &standingFake{
		qs: []*memory.StandingQuestion{
			{ID: "new", BankID: "b", Question: "Q new?", CreatedAt: t0},
			answered("fresh", "f-ok", "o-ok"),
			answered("superseded", "f-ok", "f-old"),
			answered("obs-changed", "o-changed"),
			answered("obs-archived", "o-archived"),
			answered("forgotten", "f-gone"),
			answered("newer", "f-ok"),
			answered("unpinned", "f-old"),
			answered("fails", "f-old"),
		},
		facts: map[string]*memory.Fact{
			"f-ok":    {ID: "f-ok", Status: memory.StatusActive, CreatedAt: t0.Add(-time.Hour)},
			"f-old":   {ID: "f-old", Status: memory.StatusSuperseded, CreatedAt: t0.Add(-time.Hour)},
			"f-later": {ID: "f-later", Status: memory.StatusActive, CreatedAt: t0.Add(time.Hour)},
		},
		obs: map[string]*memory.Observation{
			"o-ok":       {ID: "o-ok", Status: memory.StatusActive, UpdatedAt: t0.Add(-time.Hour)},
			"o-changed":  {ID: "o-changed", Status: memory.StatusActive, UpdatedAt: t0.Add(time.Hour)},
			"o-archived": {ID: "o-archived", Status: memory.StatusArchived, UpdatedAt: t0.Add(-time.Hour)},
		},
		unpin: "unpinned",
	}
	runAt := now
	recall := func(_ context.Context, q memory.Query) (*memory.Recollection, error) {
		if q.BankID != "b" || !q.Now.Equal(runAt) {
			t.Errorf("recall query %+v", q)
		}
		rec := &memory.Recollection{Results: []memory.Result{{Fact: st.facts["f-ok"]}}}
		if q.Text == "Q newer?" {
			rec.Results = append(rec.Results, memory.Result{Fact: st.facts["f-later"]})
		}
		return rec, nil
	}
	var asked []string
	answer := func(_ context.Context, question string) (string, []string, error) {
		asked = append(asked, question)
		if question == "Q fails?" {
			return "", nil, memory.Errorf(memory.EUNAVAILABLE, "model overloaded")
		}
		return "new answer to " + question, []string{"f-ok"}, nil
	}
	res, err := consolidate.Standing(t.Context(), st, recall, answer, "b", now)
	if err == nil || !strings.Contains(err.Error(), "model overloaded") || !strings.Contains(err.Error(), "Q fails?") {
		t.Errorf("error %v, want the failed answer's", err)
	}
	want := []string{"Q new?", "Q superseded?", "Q obs-changed?", "Q obs-archived?", "Q forgotten?", "Q newer?", "Q unpinned?", "Q fails?"}
	if !slices.Equal(asked, want) {
		t.Errorf("asked %v, want %v", asked, want)
	}
	if got := res.Counts(); got["questions"] != 9 || got["answered"] != 6 || got["fresh"] != 1 || got["failed"] != 1 {
		t.Errorf("counts %v", got)
	}
	for _, q := range st.qs {
		switch q.ID {
		case "fresh", "unpinned", "fails":
			if q.Answer != "old "+q.ID || !q.AnsweredAt.Equal(t0) {
				t.Errorf("%s changed: %+v", q.ID, q)
			}
		default:
			if q.Answer != "new answer to "+q.Question || !q.AnsweredAt.Equal(now) || !slices.Equal(q.MemoryIDs, []string{"f-ok"}) {
				t.Errorf("%s not answered anew: %+v", q.ID, q)
			}
		}
	}

	// Run again: everything answered is fresh now, and the model is not
	// asked (but for the one that failed).
	asked = nil
	st.facts["f-later"].CreatedAt = t0 // no longer newer than the answers
	runAt = now.Add(time.Hour)
	res, _ = consolidate.Standing(t.Context(), st, recall, answer, "b", runAt)
	if !slices.Equal(asked, []string{"Q unpinned?", "Q fails?"}) || res.Fresh != 7 {
		t.Errorf("second run asked %v (fresh %d), want only the two still stale", asked, res.Fresh)
	}
}

// StandingStale's reasons name what changed.
func TestStandingStale(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	st := &standingFake{facts: map[string]*memory.Fact{"f1": {ID: "f1", Status: memory.StatusSuperseded}}}
	for _, c := range []struct {
		q    *memory.StandingQuestion
		want string
	}{
		{&memory.StandingQuestion{ID: "q"}, "never answered"},
		{&memory.StandingQuestion{ID: "q", Answer: "a", AnsweredAt: t0, MemoryIDs: []string{"f1"}}, "fact f1 is superseded"},
		{&memory.StandingQuestion{ID: "q", Answer: "a", AnsweredAt: t0, MemoryIDs: []string{"zz"}}, "memory zz is gone"},
		{&memory.StandingQuestion{ID: "q", Answer: "a", AnsweredAt: t0}, ""},
	} {
		got, err := consolidate.StandingStale(t.Context(), st, c.q, nil)
		if err != nil || got != c.want {
			t.Errorf("StandingStale(%+v) = %q, %v; want %q", c.q, got, err, c.want)
		}
	}
}

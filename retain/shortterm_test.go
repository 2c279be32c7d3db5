package retain_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
)

// A short-term retain gives every fact of the item ExpiresAt = now + TTL:
// the default 48 h, or what Pipeline.ShortTermTTL says for the bank; a
// long-term retain gives none.
func TestPipeline_Retain_ShortTerm(t *testing.T) {
	e := newEnv(t)
	now := e.clock.Now()
	e.retain(memory.RetainRequest{BankID: "b", Text: "Lunch with Ana is at noon today. The parking is full.", ShortTerm: true})
	e.retain(memory.RetainRequest{BankID: "b", Text: "Ana is a vegetarian."})
	fs := facts(t, e.store, "b")
	if len(fs) != 3 {
		t.Fatalf("facts: got %q, want 3", texts(fs))
	}
	for _, f := range fs[:2] {
		if !f.ExpiresAt.Equal(now.Add(48*time.Hour)) || f.Tier() != memory.TierShortTerm {
			t.Errorf("%q: ExpiresAt %v, want %v (now + 48 h)", f.Text, f.ExpiresAt, now.Add(48*time.Hour))
		}
	}
	if f := fs[2]; f.ShortTerm() || f.Tier() != memory.TierLongTerm {
		t.Errorf("%q: ExpiresAt %v, want none (long-term)", f.Text, f.ExpiresAt)
	}

	var asked []string
	e.p.ShortTermTTL = func(_ context.Context, bank string) (time.Duration, error) {
		asked = append(asked, bank)
		return 12 * time.Hour, nil
	}
	e.retain(memory.RetainRequest{BankID: "b", Text: "The dentist is at four.", ShortTerm: true})
	e.retain(memory.RetainRequest{BankID: "b", Text: "Ana likes jazz."})
	fs = facts(t, e.store, "b")
	if got := fs[3]; !got.ExpiresAt.Equal(now.Add(12 * time.Hour)) {
		t.Errorf("with a 12 h TTL: ExpiresAt %v, want %v", got.ExpiresAt, now.Add(12*time.Hour))
	}
	if !slices.Equal(asked, []string{"b"}) {
		t.Errorf("ShortTermTTL asked for %q, want once for b (not for the long-term retain)", asked)
	}

	e.p.ShortTermTTL = func(context.Context, string) (time.Duration, error) { return 0, nil }
	_, err := e.p.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: "Something fleeting.", ShortTerm: true})
	if memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("a zero TTL: got %v, want EINVALID", err)
	}
	e.p.ShortTermTTL = func(_ context.Context, bank string) (time.Duration, error) { return 0, memory.UnknownBank(bank) }
	_, err = e.p.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: "Something fleeting.", ShortTerm: true})
	if memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("the TTL's error: got %v, want it (ENOTFOUND)", err)
	}

	// RetainMany (imports, the job queue's batches) keeps the flag too.
	e.p.ShortTermTTL = nil
	res, errs := e.p.RetainMany(e.ctx, []memory.RetainRequest{
		{BankID: "b", Text: "Call the plumber back.", ShortTerm: true},
		{BankID: "b", Text: "Ana was born in Porto."},
	}, nil)
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("RetainMany: %v", errs)
	}
	fs = facts(t, e.store, "b")
	byText := map[string]*memory.Fact{}
	for _, f := range fs {
		byText[f.Text] = f
	}
	if f := byText["Call the plumber back."]; f == nil || !f.ExpiresAt.Equal(now.Add(48*time.Hour)) {
		t.Errorf("RetainMany short-term: got %+v, want ExpiresAt now + 48 h (%v)", f, res[0])
	}
	if f := byText["Ana was born in Porto."]; f == nil || f.ShortTerm() {
		t.Errorf("RetainMany long-term: got %+v, want no ExpiresAt", f)
	}
}

// The same text retained short-term and long-term is two items: a
// long-term retain of what is held short-term is not a duplicate left to
// expire. The same text short-term twice is a duplicate.
func TestPipeline_Retain_ShortTermIsAnotherItem(t *testing.T) {
	e := newEnv(t)
	text := "The team offsite is in Lisbon."
	st := e.retain(memory.RetainRequest{BankID: "b", Text: text, ShortTerm: true})
	if again := e.retain(memory.RetainRequest{BankID: "b", Text: text, ShortTerm: true}); !again.Duplicate || again.DocumentID != st.DocumentID {
		t.Errorf("short-term twice: got %+v, want the duplicate of %s", again, st.DocumentID)
	}
	lt := e.retain(memory.RetainRequest{BankID: "b", Text: text})
	if lt.Duplicate || lt.DocumentID == st.DocumentID {
		t.Errorf("long-term after short-term: got %+v, want a new item", lt)
	}
	if again := e.retain(memory.RetainRequest{BankID: "b", Text: text}); !again.Duplicate {
		t.Errorf("long-term twice: got %+v, want a duplicate", again)
	}
	fs := facts(t, e.store, "b")
	if len(fs) != 2 || !fs[0].ShortTerm() || fs[1].ShortTerm() {
		t.Errorf("facts: got %d, want one short-term and one long-term", len(fs))
	}
}

// scriptedJudge answers every conflict of a new fact by its text: the
// action and the text of the candidate it concerns; any other is new.
type scriptedJudge map[string]struct {
	action   extract.Action
	existing string
}

func (j scriptedJudge) Classify(_ context.Context, cs []extract.Conflict) ([]extract.Decision, error) {
	out := make([]extract.Decision, len(cs))
	for i, c := range cs {
		out[i].Action = extract.ActionNew
		s, ok := j[c.Fact.Text]
		if !ok {
			continue
		}
		for _, x := range c.Candidates {
			if x.Text == s.existing {
				out[i] = extract.Decision{Action: s.action, Existing: x.ID}
			}
		}
	}
	return out, nil
}

// TestPipeline_Retain_ShortTermConflicts checks conflict resolution
// across tiers (DESIGN §4 step 6): a short-term fact never takes a
// long-term fact's place, and a long-term fact is never dropped in
// favour of a short-term one the expire pass may prune.
func TestPipeline_Retain_ShortTermConflicts(t *testing.T) {
	const (
		home     = "Bob lives in Porto."
		trip     = "Bob lives in Rome."
		standup  = "The standup is at ten."
		standup9 = "The standup is at nine."
		note     = "Ana parks on level two."
	)
	judge := scriptedJudge{
		home:     {extract.ActionDuplicate, home},
		trip:     {extract.ActionUpdate, home},
		standup:  {extract.ActionDuplicate, standup},
		standup9: {extract.ActionContradiction, standup},
		note:     {extract.ActionDuplicate, note},
	}
	e := newEnv(t)
	e.p.Judge = judge
	e.p.ConflictSimilarity = 1e-9 // every similar fact is a candidate: the judge decides
	at := func(req memory.RetainRequest) *memory.RetainResult {
		t.Helper()
		e.clock.Advance(time.Minute)
		req.BankID, req.At = "b", e.clock.Now()
		return e.retain(req)
	}
	byText := func(text string) []*memory.Fact {
		var out []*memory.Fact
		for _, f := range facts(t, e.store, "b") {
			if f.Text == text {
				out = append(out, f)
			}
		}
		return out
	}

	// A short-term repeat of a long-term fact reinforces it and is
	// dropped: the long-term fact holds it for good.
	at(memory.RetainRequest{Text: home})
	res := at(memory.RetainRequest{Text: home, ShortTerm: true})
	if len(res.Outcomes) != 1 || res.Outcomes[0].Action != memory.OutcomeSkipped {
		t.Errorf("short-term repeat of a long-term fact: outcomes %+v, want skipped", res.Outcomes)
	}
	if fs := byText(home); len(fs) != 1 || fs[0].ShortTerm() || fs[0].ReinforcementCount != 1 {
		t.Errorf("%q: got %d facts, want the long-term one alone, reinforced", home, len(fs))
	}

	// A short-term update does not close the long-term fact: both stay.
	res = at(memory.RetainRequest{Text: trip, ShortTerm: true})
	if len(res.Outcomes) != 1 || res.Outcomes[0].Action != memory.OutcomeStored {
		t.Errorf("short-term update of a long-term fact: outcomes %+v, want stored", res.Outcomes)
	}
	if fs := byText(home); len(fs) != 1 || fs[0].Status != memory.StatusActive {
		t.Errorf("%q after a short-term update: got %+v, want it active", home, fs)
	}
	if fs := byText(trip); len(fs) != 1 || !fs[0].ShortTerm() || fs[0].Status != memory.StatusActive {
		t.Errorf("%q: got %+v, want it active and short-term", trip, fs)
	}

	// A long-term repeat of a short-term fact is stored, not dropped: the
	// short-term one may be pruned.
	at(memory.RetainRequest{Text: standup, ShortTerm: true})
	res = at(memory.RetainRequest{Text: standup})
	if len(res.Outcomes) != 1 || res.Outcomes[0].Action != memory.OutcomeStored {
		t.Errorf("long-term repeat of a short-term fact: outcomes %+v, want stored", res.Outcomes)
	}
	fs := byText(standup)
	if len(fs) != 2 || !fs[0].ShortTerm() || fs[1].ShortTerm() || fs[0].ReinforcementCount != 0 {
		t.Errorf("%q: got %d facts, want the short-term one (not reinforced) and a long-term one", standup, len(fs))
	}

	// A long-term contradiction supersedes short-term facts as any other.
	res = at(memory.RetainRequest{Text: standup9})
	if len(res.Outcomes) != 1 || res.Outcomes[0].Action != memory.OutcomeSuperseded {
		t.Errorf("long-term contradiction of a short-term fact: outcomes %+v, want superseded", res.Outcomes)
	}

	// A short-term repeat of a short-term fact that expires sooner is
	// stored (it lives longer); of one that expires later, dropped.
	at(memory.RetainRequest{Text: note, ShortTerm: true})
	res = at(memory.RetainRequest{Text: note, ShortTerm: true})
	if len(res.Outcomes) != 1 || res.Outcomes[0].Action != memory.OutcomeStored {
		t.Errorf("a later short-term repeat: outcomes %+v, want stored", res.Outcomes)
	}
	e.p.ShortTermTTL = func(context.Context, string) (time.Duration, error) { return time.Hour, nil }
	res = at(memory.RetainRequest{Text: note, ShortTerm: true})
	if len(res.Outcomes) != 1 || res.Outcomes[0].Action != memory.OutcomeSkipped {
		t.Errorf("a short-term repeat that would expire sooner: outcomes %+v, want skipped", res.Outcomes)
	}
}

var _ retain.Judge = scriptedJudge{}

// racingStore is a Store on which another writer acts once, between the
// resolution's search for similar facts and its read of them: before
// the first Facts call that reads fact id.
type racingStore struct {
	retain.Store
	id     string
	before func()
}

func (s *racingStore) Facts(ctx context.Context, bank string, ids []string) ([]*memory.Fact, error) {
	if s.before != nil && slices.Contains(ids, s.id) {
		before := s.before
		s.before = nil
		before()
	}
	return s.Store.Facts(ctx, bank, ids)
}

// A similar fact the resolution found active and another writer
// superseded before the judge saw it: the item is resolved again,
// against the fact that replaced it, instead of standing beside it as a
// second current fact.
func TestPipeline_Retain_CandidateSupersededMeanwhile(t *testing.T) {
	const (
		porto = "Bob lives in Porto."
		rome  = "Bob lives in Rome."
		oslo  = "Bob lives in Oslo."
	)
	judge := scriptedJudge{rome: {extract.ActionUpdate, porto}, oslo: {extract.ActionUpdate, rome}}
	e := newEnv(t)
	e.p.Judge = judge
	e.p.ConflictSimilarity = 1e-9 // every similar fact is a candidate: the judge decides
	e.retain(memory.RetainRequest{BankID: "b", Text: porto, At: e.clock.Now()})
	portoID := facts(t, e.store, "b")[0].ID
	other := retain.New(e.store, e.emb, extract.NewHeuristic())
	other.Judge, other.ConflictSimilarity, other.Now = judge, 1e-9, e.clock.Now
	e.p.Store = &racingStore{Store: e.store, id: portoID, before: func() {
		e.clock.Advance(time.Minute)
		if _, err := other.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: rome, At: e.clock.Now()}); err != nil {
			t.Fatalf("the other writer: %v", err)
		}
	}}
	e.clock.Advance(time.Minute)
	e.retain(memory.RetainRequest{BankID: "b", Text: oslo, At: e.clock.Now()})
	var active []string
	by := map[string]string{}
	for _, f := range facts(t, e.store, "b") {
		if f.Status == memory.StatusActive {
			active = append(active, f.Text)
		}
		by[f.Text] = f.SupersededBy
	}
	if len(active) != 1 || active[0] != oslo {
		t.Errorf("active facts %q, want only %q", active, oslo)
	}
	if by[porto] == "" || by[rome] == "" {
		t.Errorf("superseded by: %v, want Porto by Rome and Rome by Oslo", by)
	}
}

package mnemo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// consoleDay is the first day of the console tests' little story.
var consoleDay = time.Date(2025, time.January, 6, 9, 0, 0, 0, time.UTC)

// consoleFixture is a bank written through the store: "I drink coffee"
// on day 0, "I switched to tea" on day 10 superseding it (mnemo learned
// it no longer held on day 10), "Lisbon trip" on day 20, each mentioning
// its entities; an engine opened over the store.
type consoleFixture struct {
	ctx context.Context
	s   memory.Store
	eng *mnemo.Engine
}

func consoleAt(day int) time.Time { return consoleDay.Add(time.Duration(day) * 24 * time.Hour) }

func newConsoleFixture(t *testing.T) *consoleFixture {
	t.Helper()
	ctx := context.Background()
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "b")
	coffee := memory.Entity{ID: "e-coffee", Name: "coffee", Type: memory.EntityTopic}
	tea := memory.Entity{ID: "e-tea", Name: "tea", Type: memory.EntityTopic}
	lisbon := memory.Entity{ID: "e-lisbon", Name: "Lisbon", Type: memory.EntityPlace}
	write := func(doc string, day int, text string, sup string, ents ...memory.Entity) {
		t.Helper()
		w := storetest.NewTestBatch("b", doc, text)
		f := w.Facts[0]
		f.CreatedAt, f.MentionedAt = consoleAt(day), consoleAt(day)
		for _, e := range ents {
			e.FirstSeen, e.LastSeen = consoleAt(day), consoleAt(day)
			w.Entities = append(w.Entities, memory.EntityUpsert{Entity: e, Mentions: 1, Episodes: 1})
			w.Refs = append(w.Refs, memory.EntityRef{FactID: f.ID, EntityID: e.ID})
		}
		if sup != "" {
			w.Supersede = []memory.Supersession{{FactID: sup, SupersededBy: f.ID, ValidTo: consoleAt(day), ExpiredAt: consoleAt(day)}}
		}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatalf("write %s: %v", doc, err)
		}
	}
	write("d0", 0, "I drink coffee every morning", "", coffee)
	write("d1", 10, "I switched from coffee to tea", storetest.TestFactID("d0", 0), coffee, tea)
	write("d2", 20, "Trip to Lisbon with tea", "", lisbon, tea)
	eng, err := mnemo.Open(ctx, mnemo.Config{Store: s, Now: testutil.NewClock(consoleAt(30)).Now, JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &consoleFixture{ctx: ctx, s: s, eng: eng}
}

func factTexts(fs []*memory.Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Text)
	}
	return out
}

func TestTimeline(t *testing.T) {
	fx := newConsoleFixture(t)
	for _, c := range []struct {
		name string
		q    mnemo.TimelineQuery
		want []string
	}{
		{"Now", mnemo.TimelineQuery{}, []string{"Trip to Lisbon with tea", "I switched from coffee to tea", "I drink coffee every morning"}},
		{"AsOfDay5", mnemo.TimelineQuery{AsOf: consoleAt(5)}, []string{"I drink coffee every morning"}},
		{"AsOfDay10", mnemo.TimelineQuery{AsOf: consoleAt(10)}, []string{"I switched from coffee to tea"}},
		{"AsOfDay15", mnemo.TimelineQuery{AsOf: consoleAt(15)}, []string{"I switched from coffee to tea"}},
		{"AsOfDay25", mnemo.TimelineQuery{AsOf: consoleAt(25)}, []string{"Trip to Lisbon with tea", "I switched from coffee to tea"}},
		{"BeforeAnything", mnemo.TimelineQuery{AsOf: consoleAt(-1)}, nil},
		{"Limit", mnemo.TimelineQuery{AsOf: consoleAt(25), Facts: memory.FactQuery{Limit: 1}}, []string{"Trip to Lisbon with tea"}},
		{"Filter", mnemo.TimelineQuery{Facts: memory.FactQuery{Kinds: []memory.FactKind{memory.KindExperience}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl, err := fx.eng.Timeline(fx.ctx, "b", c.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := factTexts(tl.Facts); !slices.Equal(got, c.want) {
				t.Errorf("facts: got %q, want %q", got, c.want)
			}
			if !tl.Oldest.Equal(consoleAt(0)) || !tl.Newest.Equal(consoleAt(20)) {
				t.Errorf("range: got %s – %s, want %s – %s", tl.Oldest, tl.Newest, consoleAt(0), consoleAt(20))
			}
		})
	}
	t.Run("Errors", func(t *testing.T) {
		if _, err := fx.eng.Timeline(fx.ctx, "nope", mnemo.TimelineQuery{}); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("unknown bank: %v, want ENOTFOUND", err)
		}
		if _, err := fx.eng.Timeline(fx.ctx, "b", mnemo.TimelineQuery{Facts: memory.FactQuery{Limit: -1}}); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("bad limit: %v, want EINVALID", err)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		if _, err := fx.eng.CreateBank(fx.ctx, "empty"); err != nil {
			t.Fatal(err)
		}
		tl, err := fx.eng.Timeline(fx.ctx, "empty", mnemo.TimelineQuery{AsOf: consoleAt(5)})
		if err != nil || len(tl.Facts) != 0 || !tl.Oldest.IsZero() {
			t.Errorf("empty bank: %+v, %v; want nothing", tl, err)
		}
	})
}

// TestTimeline_ManyPages checks the binary search against a linear
// reading on a bank of many facts, some forgotten (gaps in Seq).
func TestTimeline_ManyPages(t *testing.T) {
	ctx := context.Background()
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "b")
	const n = 60
	for i := range n {
		w := storetest.NewTestBatch("b", fmt.Sprintf("d%02d", i), fmt.Sprintf("fact %02d", i))
		w.Facts[0].CreatedAt = consoleAt(i)
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := mnemo.Open(ctx, mnemo.Config{Store: s, JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	gone := []string{storetest.TestFactID("d00", 0), storetest.TestFactID("d31", 0), storetest.TestFactID("d32", 0)}
	if _, err := eng.Forget(ctx, "b", mnemo.ForgetSelector{IDs: gone}); err != nil {
		t.Fatal(err)
	}
	for _, day := range []int{0, 1, 30, 31, 32, 33, 59, 70} {
		tl, err := eng.Timeline(ctx, "b", mnemo.TimelineQuery{AsOf: consoleAt(day), Facts: memory.FactQuery{Limit: 5}})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := min(day, n-1); i >= 0 && len(want) < 5; i-- {
			if id := storetest.TestFactID(fmt.Sprintf("d%02d", i), 0); !slices.Contains(gone, id) {
				want = append(want, fmt.Sprintf("fact %02d", i))
			}
		}
		if got := factTexts(tl.Facts); !slices.Equal(got, want) {
			t.Errorf("as of day %d: got %q, want %q", day, got, want)
		}
		if !tl.Oldest.Equal(consoleAt(1)) {
			t.Errorf("oldest: got %s, want day 1 (day 0 forgotten)", tl.Oldest)
		}
	}
}

func TestEntityHistory(t *testing.T) {
	fx := newConsoleFixture(t)
	h, err := fx.eng.EntityHistory(fx.ctx, "b", "e-coffee", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := factTexts(h.Facts), []string{"I switched from coffee to tea"}; !slices.Equal(got, want) {
		t.Fatalf("facts: got %q, want %q", got, want)
	}
	old := h.Replaced[h.Facts[0].ID]
	if got, want := factTexts(old), []string{"I drink coffee every morning"}; !slices.Equal(got, want) {
		t.Errorf("replaced: got %q, want %q", got, want)
	}
	if _, err := fx.eng.EntityHistory(fx.ctx, "b", "nobody", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown entity: %v, want ENOTFOUND", err)
	}
}

func TestNeighbourhood(t *testing.T) {
	fx := newConsoleFixture(t)
	n, err := fx.eng.Neighbourhood(fx.ctx, "b", "tea", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range n.Neighbours {
		got = append(got, fmt.Sprintf("%s:%d", x.Entity.Name, x.Cooccurrences))
	}
	if want := []string{"Lisbon:1", "coffee:1"}; !slices.Equal(got, want) || n.More != 0 {
		t.Errorf("neighbours of tea: got %q (+%d), want %q", got, n.More, want)
	}
	n, err = fx.eng.Neighbourhood(fx.ctx, "b", "tea", 1)
	if err != nil || len(n.Neighbours) != 1 || n.More != 1 {
		t.Errorf("top 1: %+v, %v; want one neighbour and one more", n, err)
	}
	if _, err := fx.eng.Neighbourhood(fx.ctx, "b", "tea", -1); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("negative top: %v, want EINVALID", err)
	}
}

func TestZone(t *testing.T) {
	fx := newConsoleFixture(t)
	err := fx.s.ApplyDecay(fx.ctx, "b", &memory.DecayUpdate{
		Entities: []memory.EntityDecay{{ID: "e-coffee", Salience: 0.05, Tier: memory.TierSemantic}, {ID: "e-tea", Salience: 0.9, Tier: memory.TierEpisodic}, {ID: "e-lisbon", Salience: 0.5, Tier: memory.TierEpisodic}},
		Changes:  []memory.TierChange{{EntityID: "e-coffee", From: memory.TierEpisodic, To: memory.TierSemantic, Reason: "test", At: consoleAt(12)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	z, err := fx.eng.Zone(fx.ctx, "b", 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range z.Entities {
		got = append(got, fmt.Sprintf("%s/%s/%s", e.Type, e.Tier, e.Name))
	}
	// One per cell: topic L0 keeps tea (0.9), not… there is only tea; the
	// place lane has Lisbon; coffee is topic L1.
	if want := []string{"place/L0/Lisbon", "topic/L0/tea", "topic/L1/coffee"}; !slices.Equal(got, want) {
		t.Errorf("entities: got %q, want %q", got, want)
	}
	if z.Stats.L0 != 2 || z.Stats.L1 != 1 || z.Stats.LowSalience != 1 {
		t.Errorf("stats: %+v, want L0 2, L1 1, low salience 1", *z.Stats)
	}
	if z.Counts[memory.EntityTopic][memory.TierEpisodic] != 1 || len(z.Trail) != 1 || z.Trail[0].EntityID != "e-coffee" {
		t.Errorf("counts %v, trail %+v", z.Counts, z.Trail)
	}
	if err := fx.s.ApplyDecay(fx.ctx, "b", &memory.DecayUpdate{Entities: []memory.EntityDecay{{ID: "e-lisbon", Salience: 0.95, Tier: memory.TierEpisodic}}}); err != nil {
		t.Fatal(err)
	}
	// Two in the place lane would need a second place; one per cell with
	// two topics at L0 after tea moves there keeps the more salient.
	if err := fx.s.ApplyDecay(fx.ctx, "b", &memory.DecayUpdate{Entities: []memory.EntityDecay{{ID: "e-coffee", Salience: 0.2, Tier: memory.TierEpisodic}}}); err != nil {
		t.Fatal(err)
	}
	z, err = fx.eng.Zone(fx.ctx, "b", 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := z.Counts[memory.EntityTopic][memory.TierEpisodic]; n != 2 {
		t.Errorf("topic L0 count: %d, want 2", n)
	}
	for _, e := range z.Entities {
		if e.Name == "coffee" {
			t.Errorf("coffee (0.2) shown over tea (0.9) with one per cell")
		}
	}
	if _, err := fx.eng.Zone(fx.ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown bank: %v, want ENOTFOUND", err)
	}
	if log, err := fx.eng.TierLog(fx.ctx, "b", 0); err != nil || len(log) != 1 {
		t.Errorf("TierLog: %+v, %v; want one change", log, err)
	}
}

func TestRetryJob(t *testing.T) {
	fx := newConsoleFixture(t)
	failed := &memory.Job{ID: "j1", BankID: "b", Kind: memory.JobRetain, Payload: []byte(`{"bank_id":"b","content":"hello there"}`), CreatedAt: consoleAt(1)}
	if err := fx.s.EnqueueJob(fx.ctx, failed); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.eng.RetryJob(fx.ctx, "b", "j1"); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("retry a queued job: %v, want ECONFLICT", err)
	}
	j, err := fx.s.ClaimJob(fx.ctx, consoleAt(2))
	if err != nil {
		t.Fatal(err)
	}
	j.Status, j.Error, j.UpdatedAt = memory.JobFailed, "boom", consoleAt(2)
	if err := fx.s.FinishJob(fx.ctx, j); err != nil {
		t.Fatal(err)
	}
	nj, err := fx.eng.RetryJob(fx.ctx, "b", "j1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fx.eng.Job(fx.ctx, "b", nj.ID)
	if err != nil || got.Status != memory.JobQueued || string(got.Payload) != string(failed.Payload) || got.Kind != memory.JobRetain {
		t.Errorf("new job: %+v, %v; want queued with the payload", got, err)
	}
	if old, _ := fx.eng.Job(fx.ctx, "b", "j1"); old.Status != memory.JobFailed {
		t.Errorf("old job: %s, want still failed", old.Status)
	}
	if _, err := fx.eng.RetryJob(fx.ctx, "other", "j1"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("another bank's job: %v, want ENOTFOUND", err)
	}
}

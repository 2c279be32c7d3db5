package consolidate_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

func TestShortTermDefaults(t *testing.T) {
	d := consolidate.NewDefaults().ShortTerm
	if d.TTL != 48*time.Hour {
		t.Errorf("TTL: got %s, want 48h (memory.DefaultShortTermTTL)", d.TTL)
	}
	if d.MinImportance != consolidate.DefaultShortTermMinImportance {
		t.Errorf("MinImportance: got %g, want %g", d.MinImportance, consolidate.DefaultShortTermMinImportance)
	}
	for _, bad := range []consolidate.ShortTermDefaults{{TTL: 0, MinImportance: 0.6}, {TTL: -time.Hour, MinImportance: 0.6}, {TTL: time.Hour, MinImportance: 1.5}, {TTL: time.Hour, MinImportance: -0.1}} {
		if err := bad.Validate(); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("Validate(%+v): got %v, want EINVALID", bad, err)
		}
	}
}

// TestKeepShortTerm checks the rule of seed 002's maintenance: an
// expired short-term memory is kept if it was accessed or is important,
// and pruned otherwise; a long-term fact never lapses.
func TestKeepShortTerm(t *testing.T) {
	d := consolidate.NewDefaults().ShortTerm
	now := t0
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	for _, c := range []struct {
		name         string
		f            memory.Fact
		keep, lapsed bool
	}{
		{"NeverRecalled", memory.Fact{ExpiresAt: past, Importance: 0.5}, false, true},
		{"RecalledOnce", memory.Fact{ExpiresAt: past, Importance: 0.5, AccessCount: 1}, true, false},
		{"Important", memory.Fact{ExpiresAt: past, Importance: 0.6}, true, false},
		{"JustBelow", memory.Fact{ExpiresAt: past, Importance: 0.59}, false, true},
		{"ExpiresNow", memory.Fact{ExpiresAt: now}, false, true},
		{"NotYet", memory.Fact{ExpiresAt: future}, false, false},
		{"LongTerm", memory.Fact{Importance: 0.1}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.f.ShortTerm() && c.f.ExpiresBy(now) {
				if got := consolidate.KeepShortTerm(&c.f, d); got != c.keep {
					t.Errorf("KeepShortTerm: got %v, want %v", got, c.keep)
				}
			}
			if got := consolidate.Lapsed(&c.f, now, d); got != c.lapsed {
				t.Errorf("Lapsed: got %v, want %v", got, c.lapsed)
			}
		})
	}
	t.Run("Overridden", func(t *testing.T) {
		o := d
		o.MinImportance = 0.9
		f := memory.Fact{ExpiresAt: past, Importance: 0.8}
		if consolidate.KeepShortTerm(&f, o) || !consolidate.Lapsed(&f, now, o) {
			t.Errorf("importance 0.8 with MinImportance 0.9: want pruned")
		}
	})
}

// expireBank is a bank of seven facts for the expire pass, with entities,
// links and observations, written at t0 - 49 h as a short-term retain
// would write them (TTL 48 h):
//
//	f0 long-term
//	f1 expired, never recalled          → pruned
//	f2 expired, recalled twice          → promoted
//	f3 expired, important (0.8)         → promoted
//	f4 expires an hour after t0         → untouched, pruned an hour later
//	f5 expired, superseded by f0        → pruned
//	f6 expires exactly at t0            → pruned; it shares Bob with f0,
//	                                      lunch with f1, links and o1 with f0
type expireBank struct {
	s     *sqlite.Store
	bank  string
	facts []*memory.Fact
}

func newExpireBank(t *testing.T) *expireBank {
	t.Helper()
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "b")
	born := t0.Add(-49 * time.Hour)
	w := storetest.NewTestBatch("b", "d", "Bob works at Acme.", "Lunch is at noon.", "The standup moved to 10.", "Bob's flight lands at 6.", "The parking is full today.", "Bob is in Paris this week.", "Lunch with Bob on Friday.")
	f := w.Facts
	for _, x := range f[1:] {
		x.CreatedAt, x.ExpiresAt = born, born.Add(48*time.Hour)
	}
	f[2].AccessCount = 2
	f[3].Importance = 0.8
	f[4].ExpiresAt = t0.Add(time.Hour)
	f[5].Status, f[5].SupersededBy = memory.StatusSuperseded, f[0].ID
	f[6].ExpiresAt = t0
	bob, lunch := memory.EntityID("bob"), memory.EntityID("lunch")
	w.Entities = []memory.EntityUpsert{
		{Entity: memory.Entity{ID: bob, Name: "Bob", Type: memory.EntityPerson, FirstSeen: born, LastSeen: born}, Mentions: 2, Episodes: 1},
		{Entity: memory.Entity{ID: lunch, Name: "lunch", Type: memory.EntityThing, FirstSeen: born, LastSeen: born}, Mentions: 2, Episodes: 1},
	}
	w.Refs = []memory.EntityRef{{FactID: f[0].ID, EntityID: bob}, {FactID: f[6].ID, EntityID: bob}, {FactID: f[1].ID, EntityID: lunch}, {FactID: f[6].ID, EntityID: lunch}}
	w.Links = []memory.Link{
		{BankID: "b", FromID: f[0].ID, ToID: f[6].ID, Kind: memory.LinkEntity, EntityID: bob, Weight: 1},
		{BankID: "b", FromID: f[6].ID, ToID: f[0].ID, Kind: memory.LinkEntity, EntityID: bob, Weight: 1},
		{BankID: "b", FromID: f[0].ID, ToID: f[2].ID, Kind: memory.LinkTemporal, Weight: 1},
	}
	ctx := context.Background()
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	obs := []*memory.Observation{
		{ID: "o1", Text: "Bob travels for Acme", Kind: memory.ObservationPattern, SourceFactIDs: []string{f[0].ID, f[6].ID}, EvidenceCount: 2, Status: memory.StatusActive, CreatedAt: born, UpdatedAt: born},
		{ID: "o2", Text: "Lunch is a fixed point", Kind: memory.ObservationPattern, SourceFactIDs: []string{f[1].ID}, EvidenceCount: 1, Status: memory.StatusActive, CreatedAt: born, UpdatedAt: born},
	}
	if err := s.PutObservations(ctx, "b", obs); err != nil {
		t.Fatal(err)
	}
	return &expireBank{s: s, bank: "b", facts: f}
}

// stored returns the facts of the bank by id, with ExpiresAt as stored.
func (b *expireBank) stored(t *testing.T) map[string]*memory.Fact {
	t.Helper()
	var ids []string
	for _, f := range b.facts {
		ids = append(ids, f.ID)
	}
	fs, err := b.s.Facts(context.Background(), b.bank, ids)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*memory.Fact{}
	for _, f := range fs {
		out[f.ID] = f
	}
	return out
}

func TestExpire(t *testing.T) {
	ctx := context.Background()
	b := newExpireBank(t)
	f := b.facts
	d := consolidate.NewDefaults()
	d.BatchSize = 2 // several pages

	res, err := consolidate.Expire(ctx, b.s, b.bank, t0, d)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *res, (consolidate.ExpireResult{Expired: 5, Promoted: 2, Pruned: 3}); got != want {
		t.Errorf("Expire: got %+v, want %+v", got, want)
	}
	got := b.stored(t)
	for _, i := range []int{1, 5, 6} {
		if got[f[i].ID] != nil {
			t.Errorf("f%d (%q) is still stored, want pruned", i, f[i].Text)
		}
	}
	for _, i := range []int{2, 3} {
		if x := got[f[i].ID]; x == nil || x.ShortTerm() || x.Tier() != memory.TierLongTerm {
			t.Errorf("f%d (%q): got %+v, want kept as long-term", i, f[i].Text, x)
		}
	}
	if x := got[f[4].ID]; x == nil || !x.ExpiresAt.Equal(f[4].ExpiresAt) {
		t.Errorf("f4 (not yet expired): got %+v, want untouched", x)
	}
	if x := got[f[0].ID]; x == nil || x.ShortTerm() || x.Status != memory.StatusActive {
		t.Errorf("f0 (long-term): got %+v, want untouched", x)
	}

	// Pruned as forget prunes: refs, links, entities left with no ref,
	// observation sources.
	refs, err := b.s.EntityRefs(ctx, b.bank, []string{f[0].ID, f[1].ID, f[6].ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := []memory.EntityRef{{FactID: f[0].ID, EntityID: memory.EntityID("bob")}}; !slices.Equal(refs, want) {
		t.Errorf("refs after the pass: got %v, want %v", refs, want)
	}
	if es, _ := b.s.Entities(ctx, b.bank, []string{memory.EntityID("lunch")}); len(es) != 0 {
		t.Errorf("entity lunch: still there with no fact left")
	}
	links, err := b.s.Links(ctx, b.bank, []string{f[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || links[0].ToID != f[2].ID {
		t.Errorf("links of f0: got %+v, want the one to f2 alone", links)
	}
	obs, err := b.s.Observations(ctx, b.bank, []string{"o1", "o2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 1 || obs[0].ID != "o1" || !slices.Equal(obs[0].SourceFactIDs, []string{f[0].ID}) {
		t.Errorf("observations: got %+v, want o1 with f0 alone", obs)
	}
	log, err := b.s.ForgetLog(ctx, b.bank, 0)
	if err != nil {
		t.Fatal(err)
	}
	pruned := 0
	for _, r := range log {
		if r.Actor != consolidate.ExpireActor {
			t.Errorf("forget record %s: actor %q, want %q", r.ID, r.Actor, consolidate.ExpireActor)
		}
		pruned += r.Counts.Facts
	}
	if pruned != 3 {
		t.Errorf("forget log: %d facts, want the 3 pruned", pruned)
	}

	// Idempotent: a second run at the same time finds nothing.
	again, err := consolidate.Expire(ctx, b.s, b.bank, t0, d)
	if err != nil || *again != (consolidate.ExpireResult{}) {
		t.Errorf("Expire again: got %+v, %v, want nothing done", again, err)
	}
	// An hour later f4's time is up: never recalled, it goes.
	later, err := consolidate.Expire(ctx, b.s, b.bank, t0.Add(time.Hour), d)
	if err != nil || *later != (consolidate.ExpireResult{Expired: 1, Pruned: 1}) {
		t.Errorf("Expire an hour later: got %+v, %v, want f4 pruned", later, err)
	}
	if res.Counts()["expired"] != 5 || res.Counts()["promoted"] != 2 || res.Counts()["pruned"] != 3 {
		t.Errorf("Counts: got %v", res.Counts())
	}
}

// vanishingStore forgets one fact right after the first listing, as a
// retain that replaces the fact's document would while the pass runs.
type vanishingStore struct {
	*sqlite.Store
	bank, id string
	done     bool
}

func (s *vanishingStore) ListFacts(ctx context.Context, bank string, q memory.FactQuery) (*memory.FactPage, error) {
	page, err := s.Store.ListFacts(ctx, bank, q)
	if err == nil && !s.done {
		s.done = true
		if _, err := s.Store.Forget(ctx, s.bank, []string{s.id}, &memory.ForgetRecord{Actor: "test"}); err != nil {
			return nil, err
		}
	}
	return page, err
}

// A fact that goes while the pass runs is skipped, not an error: the
// others of its page are pruned.
func TestExpire_FactGoneMeanwhile(t *testing.T) {
	b := newExpireBank(t)
	st := &vanishingStore{Store: b.s, bank: b.bank, id: b.facts[1].ID}
	res, err := consolidate.Expire(context.Background(), st, b.bank, t0, consolidate.NewDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if want := (consolidate.ExpireResult{Expired: 5, Promoted: 2, Pruned: 2}); *res != want {
		t.Errorf("Expire: got %+v, want %+v", *res, want)
	}
	got := b.stored(t)
	for _, i := range []int{1, 5, 6} {
		if got[b.facts[i].ID] != nil {
			t.Errorf("f%d is still stored", i)
		}
	}
}

func TestExpire_Invalid(t *testing.T) {
	b := newExpireBank(t)
	d := consolidate.NewDefaults()
	d.ShortTerm.MinImportance = 2
	if _, err := consolidate.Expire(context.Background(), b.s, b.bank, t0, d); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("Expire with MinImportance 2: got %v, want EINVALID", err)
	}
	if _, err := consolidate.Expire(context.Background(), b.s, "nope", t0, consolidate.NewDefaults()); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Expire of an unknown bank: got %v, want ENOTFOUND", err)
	}
}

// TestMergeDuplicates_KeeperLivesLongest checks that the fact merge never
// folds a long-term fact into a short-term duplicate, which the expire
// pass could then prune: the long-term fact is the keeper, whatever refs
// and accesses the short-term ones have, and survives the expire pass.
func TestMergeDuplicates_KeeperLivesLongest(t *testing.T) {
	ctx := context.Background()
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "b")
	w := storetest.NewTestBatch("b", "d", "I adopted a cat named Pip.", "i adopted a cat named pip", "I adopted a cat named Pip!")
	f := w.Facts
	f[0].CreatedAt = t0.Add(-72 * time.Hour)
	for _, x := range f[1:] {
		x.CreatedAt, x.ExpiresAt = t0.Add(-50*time.Hour), t0.Add(-2*time.Hour)
	}
	f[1].AccessCount = 3 // more accesses, and refs below: seed 000's keeper
	f[2].ExpiresAt = t0.Add(-time.Hour)
	w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: memory.EntityID("pip"), Name: "Pip", Type: memory.EntityThing}, Mentions: 1, Episodes: 1}}
	w.Refs = []memory.EntityRef{{FactID: f[1].ID, EntityID: memory.EntityID("pip")}}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	res, err := consolidate.MergeDuplicates(ctx, s, "b", consolidate.MergeOptions{Now: func() time.Time { return t0 }})
	if err != nil || res.Merged != 2 {
		t.Fatalf("MergeDuplicates: got %+v, %v, want 2 merged", res, err)
	}
	if _, err := consolidate.Expire(ctx, s, "b", t0, consolidate.NewDefaults()); err != nil {
		t.Fatal(err)
	}
	fs, err := s.Facts(ctx, "b", []string{f[0].ID})
	if err != nil || len(fs) != 1 || fs[0].Status != memory.StatusActive || fs[0].ShortTerm() {
		t.Fatalf("the long-term fact after merge and expire: got %+v, %v, want it active and long-term", fs, err)
	}
	for _, x := range f[1:] {
		if got, _ := s.Facts(ctx, "b", []string{x.ID}); len(got) == 1 && got[0].Status == memory.StatusActive {
			t.Errorf("short-term duplicate %s: still active, want merged into %s", x.ID, f[0].ID)
		}
	}
}

// TestCompareLifetime orders long-term after short-term, short-term by
// expiry.
func TestCompareLifetime(t *testing.T) {
	lt, lt2 := &memory.Fact{}, &memory.Fact{}
	early, late := &memory.Fact{ExpiresAt: t0}, &memory.Fact{ExpiresAt: t0.Add(time.Hour)}
	for _, c := range []struct {
		a, b *memory.Fact
		want int
	}{{lt, lt2, 0}, {lt, early, 1}, {early, lt, -1}, {early, late, -1}, {late, early, 1}, {early, early, 0}} {
		if got := memory.CompareLifetime(c.a, c.b); got != c.want {
			t.Errorf("CompareLifetime(%v, %v): got %d, want %d", c.a.ExpiresAt, c.b.ExpiresAt, got, c.want)
		}
	}
}

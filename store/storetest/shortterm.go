package storetest

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The ShortTerm group checks what the expire pass needs of a store
// (seed 002's short-term memory): the listing of short-term facts whose
// time is up (memory.FactQuery.ExpiresBy) and their promotion to
// long-term (memory.Promoter). Pruning is memory.Forgetter's, checked by
// the Forget group.

// shortTermBatch writes a document of six facts: long-term, short-term
// expiring at -1 h, at 0 h (exactly testTime), at +1 h, superseded at
// -2 h and archived at -3 h; it returns the facts as written.
func (e *env) shortTermBatch(bank, doc string) []*memory.Fact {
	e.t.Helper()
	w := NewTestBatch(bank, doc, "long-term", "expired an hour ago", "expires right now", "expires in an hour", "superseded and expired", "archived and expired")
	f := w.Facts
	f[1].ExpiresAt, f[2].ExpiresAt, f[3].ExpiresAt = hours(-1), testTime, hours(1)
	f[4].ExpiresAt, f[4].Status, f[4].SupersededBy = hours(-2), memory.StatusSuperseded, f[0].ID
	f[5].ExpiresAt, f[5].Status = hours(-3), memory.StatusArchived
	e.writeNew(w)
	return f
}

// ExpiresBy lists the short-term facts whose ExpiresAt is at or before
// it, whatever their status, newest first and a page at a time, with the
// other filters; long-term facts and those expiring later are left out.
func testShortTermList(e *env) {
	e.newBank("b")
	e.newBank("other")
	f := e.shortTermBatch("b", "d")
	e.shortTermBatch("other", "d2")
	id := func(i ...int) []string {
		var out []string
		for _, x := range i {
			out = append(out, f[x].ID)
		}
		return e.bySeqDesc("b", out...)
	}
	for _, c := range []struct {
		name string
		q    memory.FactQuery
		want []string
	}{
		{"now", memory.FactQuery{ExpiresBy: testTime}, id(1, 2, 4, 5)},
		{"an hour ago", memory.FactQuery{ExpiresBy: hours(-1)}, id(1, 4, 5)},
		{"later", memory.FactQuery{ExpiresBy: hours(5)}, id(1, 2, 3, 4, 5)},
		{"long ago", memory.FactQuery{ExpiresBy: hours(-10)}, nil},
		{"active", memory.FactQuery{ExpiresBy: testTime, Statuses: []memory.Status{memory.StatusActive}}, id(1, 2)},
		{"none", memory.FactQuery{}, id(0, 1, 2, 3, 4, 5)},
	} {
		checkIDs(e.t, "ListFacts("+c.name+")", e.listAll("b", c.q), c.want)
		q := c.q
		q.Limit = 1
		checkIDs(e.t, "ListFacts("+c.name+") by pages of 1", e.listAll("b", q), c.want)
	}
	page, err := e.lister().ListFacts(e.ctx, "b", memory.FactQuery{ExpiresBy: testTime, Limit: 1})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(page.Facts) != 1 || page.Next == "" {
		e.t.Fatalf("ListFacts(expires by now, limit 1): got %d facts, next %q, want 1 and a cursor", len(page.Facts), page.Next)
	}
	want := map[string]*memory.Fact{}
	for _, x := range f {
		want[x.ID] = x
	}
	checkFact(e.t, page.Facts[0], want[page.Facts[0].ID])
	_, err = e.lister().ListFacts(e.ctx, "b", memory.FactQuery{Cursor: page.Next})
	wantCode(e.t, "ListFacts(a cursor of the expires-by listing, without it)", err, memory.EINVALID)
	_, err = e.lister().ListFacts(e.ctx, "b", memory.FactQuery{ExpiresBy: hours(1), Cursor: page.Next})
	wantCode(e.t, "ListFacts(a cursor of the expires-by listing, another time)", err, memory.EINVALID)
}

// PromoteFacts clears ExpiresAt of short-term facts and nothing else,
// skips long-term and unknown ids, counts a repeated id once, is
// harmless twice, stays in its bank, and refuses an unknown bank.
func testShortTermPromote(e *env) {
	e.newBank("b")
	e.newBank("other")
	f := e.shortTermBatch("b", "d")
	g := e.shortTermBatch("other", "d")
	p := e.s.(memory.Promoter)
	got, err := p.PromoteFacts(e.ctx, "b", []string{f[3].ID, "nope", f[0].ID, f[1].ID, f[3].ID, f[4].ID})
	if err != nil {
		e.t.Fatalf("PromoteFacts: %v", err)
	}
	checkIDs(e.t, "PromoteFacts changed", got, []string{f[3].ID, f[1].ID, f[4].ID})
	for i, x := range f {
		want := *x
		if i == 1 || i == 3 || i == 4 {
			want.ExpiresAt = time.Time{}
		}
		checkFact(e.t, e.fact("b", x.ID), &want)
	}
	for _, x := range g {
		checkFact(e.t, e.fact("other", x.ID), x)
	}
	checkIDs(e.t, "ListFacts(expires by later) after the promotion", e.listAll("b", memory.FactQuery{ExpiresBy: hours(5)}), e.bySeqDesc("b", f[2].ID, f[5].ID))

	again, err := p.PromoteFacts(e.ctx, "b", []string{f[1].ID, f[3].ID})
	if err != nil || len(again) != 0 {
		e.t.Errorf("PromoteFacts again: got %q, %v, want nothing changed", again, err)
	}
	if none, err := p.PromoteFacts(e.ctx, "b", nil); err != nil || len(none) != 0 {
		e.t.Errorf("PromoteFacts(no ids): got %q, %v, want nothing and no error", none, err)
	}
	_, err = p.PromoteFacts(e.ctx, "nope", []string{f[1].ID})
	wantCode(e.t, "PromoteFacts(unknown bank)", err, memory.ENOTFOUND)
	_, err = p.PromoteFacts(e.ctx, "nope", nil)
	wantCode(e.t, "PromoteFacts(unknown bank, no ids)", err, memory.ENOTFOUND)
}

// A fact written with an ExpiresAt reads back with it to the
// microsecond, through Facts and ListFacts alike, and searches find
// short-term facts as they find long-term ones: recall searches both
// tiers.
func testShortTermRoundTrip(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "d", "short-lived note about lunch", "lasting note about lunch")
	w.Facts[0].ExpiresAt = testTime.Add(48*time.Hour + 123*time.Microsecond)
	e.writeNew(w)
	checkFact(e.t, e.fact("b", w.Facts[0].ID), w.Facts[0])
	checkFact(e.t, e.fact("b", w.Facts[1].ID), w.Facts[1])
	checkIDSet(e.t, "SearchText(lunch)", hitIDs(e.searchText("b", 10, memory.Filter{}, "lunch")), batchIDs(w))
	checkIDSet(e.t, "SearchVector", e.passing("b", memory.Filter{}), batchIDs(w))
}

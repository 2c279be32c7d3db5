package storetest

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// lister returns the store as its memory.FactLister.
func (e *env) lister() memory.FactLister { return e.s }

// lifecycle returns the store as its memory.Lifecycle.
func (e *env) lifecycle() memory.Lifecycle { return e.s }

// listAll walks every page of a fact listing and returns the ids in the
// order listed, failing on an error or a walk that does not end.
func (e *env) listAll(bank string, q memory.FactQuery) []string {
	e.t.Helper()
	l := e.lister()
	var ids []string
	for range 1000 {
		page, err := l.ListFacts(e.ctx, bank, q)
		if err != nil {
			e.t.Fatalf("ListFacts(%q, %+v): %v", bank, q, err)
		}
		if q.Limit > 0 && len(page.Facts) > q.Limit {
			e.t.Errorf("ListFacts(limit %d): got a page of %d", q.Limit, len(page.Facts))
		}
		ids = append(ids, factIDs(page.Facts)...)
		if page.Next == "" {
			return ids
		}
		q.Cursor = page.Next
	}
	e.t.Fatalf("ListFacts(%q): no last page after 1000 pages", bank)
	return nil
}

// bySeqDesc returns the ids of the given facts of a bank, newest first,
// as the store numbered them.
func (e *env) bySeqDesc(bank string, ids ...string) []string {
	e.t.Helper()
	fs := e.facts(bank, ids...)
	slices.SortFunc(fs, func(a, b *memory.Fact) int { return int(b.Seq - a.Seq) })
	return factIDs(fs)
}

// Pages cover every fact exactly once, newest first, whatever the page
// size, and a fact written during a walk shifts no page.
func testFactListPages(e *env) {
	e.newBank("b")
	var all []string
	for _, w := range []*memory.WriteBatch{
		NewTestBatch("b", "d1", "one", "two", "three"),
		NewTestBatch("b", "d2", "four", "five"),
		NewTestBatch("b", "d3", "six", "seven"),
	} {
		e.writeNew(w)
		all = append(all, batchIDs(w)...)
	}
	want := e.bySeqDesc("b", all...)
	for _, limit := range []int{1, 2, 3, 7, 8, 0} {
		checkIDs(e.t, "ListFacts pages of "+strconv.Itoa(limit), e.listAll("b", memory.FactQuery{Limit: limit}), want)
	}

	l := e.lister()
	first, err := l.ListFacts(e.ctx, "b", memory.FactQuery{Limit: 3})
	if err != nil {
		e.t.Fatal(err)
	}
	if first.Next == "" {
		e.t.Fatalf("ListFacts(limit 3 of 7): no next cursor")
	}
	e.writeNew(NewTestBatch("b", "d4", "eight"))
	rest := e.listAll("b", memory.FactQuery{Limit: 3, Cursor: first.Next})
	checkIDs(e.t, "ListFacts walk with a write between pages", append(factIDs(first.Facts), rest...), want)
	if got := e.listAll("b", memory.FactQuery{}); len(got) != len(all)+1 || got[0] != "d4-f0" {
		e.t.Errorf("ListFacts after the write: got %q, want d4-f0 first and %d facts", got, len(all)+1)
	}
	page, err := l.ListFacts(e.ctx, "b", memory.FactQuery{})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(page.Facts) > 0 {
		f := page.Facts[0]
		if len(f.Embedding) != 0 {
			e.t.Errorf("ListFacts: embeddings loaded")
		}
		checkFact(e.t, f, e.fact("b", f.ID))
	}
}

// Every filter is applied, together, and the listing honours facts'
// status, kind, category, tags, speaker and event time.
func testFactListFilters(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "d", "a world fact", "an experience", "a tagged decision", "said by Kim", "late event", "archived one")
	f := w.Facts
	f[1].Kind = memory.KindExperience
	f[2].Category, f[2].Tags = memory.CategoryDecision, []string{"work", "q3"}
	f[3].Speaker = "Kim"
	f[4].OccurredStart = hours(48)
	f[5].Status = memory.StatusArchived
	f[0].Sensitivity = memory.SensitivitySensitive
	e.writeNew(w)
	id := func(i int) string { return f[i].ID }
	for _, c := range []struct {
		name string
		q    memory.FactQuery
		want []string
	}{
		{"none", memory.FactQuery{}, []string{id(0), id(1), id(2), id(3), id(4), id(5)}},
		{"kind", memory.FactQuery{Kinds: []memory.FactKind{memory.KindExperience}}, []string{id(1)}},
		{"category", memory.FactQuery{Categories: []memory.Category{memory.CategoryDecision}}, []string{id(2)}},
		{"tags", memory.FactQuery{Tags: []string{"q3", "nope"}}, []string{id(2)}},
		{"status archived", memory.FactQuery{Statuses: []memory.Status{memory.StatusArchived}}, []string{id(5)}},
		{"status active", memory.FactQuery{Statuses: []memory.Status{memory.StatusActive}}, []string{id(0), id(1), id(2), id(3), id(4)}},
		{"speaker", memory.FactQuery{Speaker: "Kim"}, []string{id(3)}},
		{"source", memory.FactQuery{Source: memory.SourceNote}, []string{id(0), id(1), id(2), id(3), id(4), id(5)}},
		{"other source", memory.FactQuery{Source: memory.SourceEmail}, nil},
		{"from", memory.FactQuery{From: hours(24)}, []string{id(4)}},
		{"to", memory.FactQuery{To: hours(24), Kinds: []memory.FactKind{memory.KindWorld}, Statuses: []memory.Status{memory.StatusActive}}, []string{id(0), id(2), id(3)}},
		{"from to", memory.FactQuery{From: hours(-1), To: hours(1), Speaker: "Sam", Categories: []memory.Category{memory.CategoryPersonal}}, []string{id(0), id(1), id(5)}},
	} {
		got := e.listAll("b", c.q)
		want := e.bySeqDesc("b", c.want...)
		checkIDs(e.t, "ListFacts("+c.name+")", got, want)
		if c.name != "none" {
			q := c.q
			q.Limit = 1
			checkIDs(e.t, "ListFacts("+c.name+") by pages of 1", e.listAll("b", q), want)
		}
	}
}

// A cursor that was edited, made for other filters or is not a cursor,
// a bad limit or filter, and an unknown bank are errors.
func testFactListErrors(e *env) {
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "d", "one", "two", "three"))
	l := e.lister()
	page, err := l.ListFacts(e.ctx, "b", memory.FactQuery{Limit: 1})
	if err != nil || page.Next == "" {
		e.t.Fatalf("ListFacts(limit 1): %v, next %q", err, page.Next)
	}
	edited := []byte(page.Next)
	edited[0] ^= 1
	for _, c := range []struct {
		name string
		q    memory.FactQuery
	}{
		{"edited cursor", memory.FactQuery{Cursor: string(edited)}},
		{"cursor of other filters", memory.FactQuery{Cursor: page.Next, Speaker: "Sam"}},
		{"not a cursor", memory.FactQuery{Cursor: "hello!"}},
		{"entity cursor", memory.FactQuery{Cursor: memory.EntityQuery{}.NextCursor("3")}},
		{"negative limit", memory.FactQuery{Limit: -1}},
		{"huge limit", memory.FactQuery{Limit: memory.MaxPageSize + 1}},
		{"unknown kind", memory.FactQuery{Kinds: []memory.FactKind{"dream"}}},
		{"unknown status", memory.FactQuery{Statuses: []memory.Status{"gone"}}},
		{"unknown category", memory.FactQuery{Categories: []memory.Category{"misc"}}},
		{"from after to", memory.FactQuery{From: hours(2), To: hours(1)}},
	} {
		_, err := l.ListFacts(e.ctx, "b", c.q)
		wantCode(e.t, "ListFacts("+c.name+")", err, memory.EINVALID)
	}
	_, err = l.ListFacts(e.ctx, "nope", memory.FactQuery{})
	wantCode(e.t, "ListFacts(unknown bank)", err, memory.ENOTFOUND)
	_, err = l.ListEntities(e.ctx, "nope", memory.EntityQuery{})
	wantCode(e.t, "ListEntities(unknown bank)", err, memory.ENOTFOUND)
	_, err = l.ListEntities(e.ctx, "b", memory.EntityQuery{Cursor: page.Next})
	wantCode(e.t, "ListEntities(a fact cursor)", err, memory.EINVALID)
	_, err = l.ListEntities(e.ctx, "b", memory.EntityQuery{Cursor: memory.EntityQuery{Type: memory.EntityPerson}.NextCursor("x")})
	wantCode(e.t, "ListEntities(a cursor of another type)", err, memory.EINVALID)
}

// A bank's listing never shows another bank's facts or entities, and a
// cursor of one bank's walk pages nothing of another's it should not.
func testFactListIsolation(e *env) {
	e.newBank("a")
	e.newBank("b")
	wa := NewTestBatch("a", "da", "alpha one", "alpha two")
	wa.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: memory.EntityID("Ann"), Name: "Ann", Type: memory.EntityPerson}, Mentions: 1}}
	e.writeNew(wa)
	wb := NewTestBatch("b", "db", "beta one")
	wb.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: memory.EntityID("Bob"), Name: "Bob", Type: memory.EntityPerson}, Mentions: 1}}
	e.writeNew(wb)
	checkIDs(e.t, "ListFacts(a)", e.listAll("a", memory.FactQuery{Limit: 1}), e.bySeqDesc("a", batchIDs(wa)...))
	checkIDs(e.t, "ListFacts(b)", e.listAll("b", memory.FactQuery{}), []string{"db-f0"})
	page, err := e.lister().ListEntities(e.ctx, "b", memory.EntityQuery{})
	if err != nil {
		e.t.Fatal(err)
	}
	checkIDs(e.t, "ListEntities(b)", entityIDs(page.Entities), []string{memory.EntityID("Bob")})
}

// Entities are listed by id, a type at a time if asked, page by page,
// with their aliases.
func testFactListEntities(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "d", "people and places")
	var want, people []string
	for i, name := range []string{"Ann", "Bob", "Cy", "Dee", "Berlin", "Paris", "Rome"} {
		t := memory.EntityPerson
		if i >= 4 {
			t = memory.EntityPlace
		}
		ent := memory.Entity{ID: memory.EntityID(name), Name: name, Type: t}
		if name == "Ann" {
			ent.Aliases = []string{"Annie"}
		}
		w.Entities = append(w.Entities, memory.EntityUpsert{Entity: ent, Mentions: 1})
		want = append(want, ent.ID)
		if t == memory.EntityPerson {
			people = append(people, ent.ID)
		}
	}
	e.writeNew(w)
	slices.Sort(want)
	slices.Sort(people)
	walk := func(q memory.EntityQuery) []string {
		var ids []string
		for range 100 {
			page, err := e.lister().ListEntities(e.ctx, "b", q)
			if err != nil {
				e.t.Fatalf("ListEntities(%+v): %v", q, err)
			}
			for _, x := range page.Entities {
				ids = append(ids, x.ID)
				if x.Name == "Ann" && !slices.ContainsFunc(x.Aliases, func(a string) bool { return strings.EqualFold(a, "Annie") }) {
					e.t.Errorf("ListEntities: Ann has aliases %q, want Annie among them", x.Aliases)
				}
			}
			if page.Next == "" {
				return ids
			}
			q.Cursor = page.Next
		}
		e.t.Fatal("ListEntities: no last page")
		return nil
	}
	checkIDs(e.t, "ListEntities(all)", walk(memory.EntityQuery{}), want)
	checkIDs(e.t, "ListEntities(by 2)", walk(memory.EntityQuery{Limit: 2}), want)
	checkIDs(e.t, "ListEntities(person, by 3)", walk(memory.EntityQuery{Type: memory.EntityPerson, Limit: 3}), people)
}

// Archiving takes a fact out of search and restoring puts it back exactly
// as it was; a repeated move is no change.
func testFactStatusRoundTrip(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "d", "the red bicycle is in the garage", "the blue car is in the street")
	e.writeNew(w)
	before := e.fact("b", "d-f0")
	lc := e.lifecycle()
	changed, err := lc.SetFactStatus(e.ctx, "b", []string{"d-f0"}, memory.StatusArchived)
	if err != nil {
		e.t.Fatalf("SetFactStatus(archived): %v", err)
	}
	checkIDs(e.t, "SetFactStatus(archived) changed", changed, []string{"d-f0"})
	want := *before
	want.Status = memory.StatusArchived
	checkFact(e.t, e.fact("b", "d-f0"), &want)
	checkIDs(e.t, "SearchText(bicycle) after archiving", hitIDs(e.searchText("b", 10, memory.Filter{}, "bicycle")), nil)
	for _, h := range e.searchVector("b", w.Facts[0].Embedding, 10, memory.Filter{}) {
		if h.ID == "d-f0" {
			e.t.Errorf("SearchVector after archiving: got the archived fact")
		}
	}
	archived := memory.Filter{Statuses: []memory.Status{memory.StatusArchived}}
	checkIDs(e.t, "SearchText(bicycle), archived", hitIDs(e.searchText("b", 10, archived, "bicycle")), []string{"d-f0"})
	if got := e.factsByEntity("b", "nobody", 5); len(got) != 0 {
		e.t.Errorf("FactsByEntities(nobody): got %q", got)
	}

	changed, err = lc.SetFactStatus(e.ctx, "b", []string{"d-f0"}, memory.StatusArchived)
	if err != nil || len(changed) != 0 {
		e.t.Errorf("SetFactStatus(archived) again: got %q, %v, want no change and no error", changed, err)
	}
	changed, err = lc.SetFactStatus(e.ctx, "b", []string{"d-f0", "d-f1"}, memory.StatusActive)
	if err != nil {
		e.t.Fatalf("SetFactStatus(active): %v", err)
	}
	checkIDs(e.t, "SetFactStatus(active) changed", changed, []string{"d-f0"})
	checkFact(e.t, e.fact("b", "d-f0"), before)
	checkIDs(e.t, "SearchText(bicycle) after restoring", hitIDs(e.searchText("b", 10, memory.Filter{}, "bicycle")), []string{"d-f0"})
	if hits := e.searchVector("b", w.Facts[0].Embedding, 1, memory.Filter{}); len(hits) != 1 || hits[0].ID != "d-f0" {
		e.t.Errorf("SearchVector after restoring: got %v, want d-f0 first", hits)
	}
	if st := e.stats("b"); st.Active != 2 || st.Archived != 0 {
		e.t.Errorf("Stats after restoring: %d active, %d archived, want 2 and 0", st.Active, st.Archived)
	}
}

// A move not allowed, an unknown id, a bad target and an unknown bank
// fail and change nothing, even for the other ids of the call.
func testFactStatusErrors(e *env) {
	e.newBank("b")
	e.newBank("other")
	w := NewTestBatch("b", "d1", "old job at Acme", "lives in Rome")
	e.writeNew(w)
	w2 := NewTestBatch("b", "d2", "new job at Globex")
	w2.Supersede = []memory.Supersession{{FactID: "d1-f0", SupersededBy: "d2-f0", ExpiredAt: hours(1)}}
	e.writeNew(w2)
	e.writeNew(NewTestBatch("other", "x", "elsewhere"))
	lc := e.lifecycle()
	before := e.facts("b", "d1-f0", "d1-f1", "d2-f0")
	for _, c := range []struct {
		name string
		bank string
		ids  []string
		to   memory.Status
		code string
	}{
		{"superseded to active", "b", []string{"d1-f1", "d1-f0"}, memory.StatusActive, memory.ECONFLICT},
		{"superseded to archived", "b", []string{"d1-f1", "d1-f0"}, memory.StatusArchived, memory.ECONFLICT},
		{"unknown id", "b", []string{"d1-f1", "nope"}, memory.StatusArchived, memory.ENOTFOUND},
		{"another bank's id", "b", []string{"d1-f1", "x-f0"}, memory.StatusArchived, memory.ENOTFOUND},
		{"to superseded", "b", []string{"d1-f1"}, memory.StatusSuperseded, memory.EINVALID},
		{"to nothing", "b", []string{"d1-f1"}, "", memory.EINVALID},
		{"no ids", "b", nil, memory.StatusArchived, memory.EINVALID},
		{"repeated id", "b", []string{"d1-f1", "d1-f1"}, memory.StatusArchived, memory.EINVALID},
		{"unknown bank", "nope", []string{"d1-f1"}, memory.StatusArchived, memory.ENOTFOUND},
	} {
		_, err := lc.SetFactStatus(e.ctx, c.bank, c.ids, c.to)
		wantCode(e.t, "SetFactStatus("+c.name+")", err, c.code)
	}
	for i, f := range e.facts("b", "d1-f0", "d1-f1", "d2-f0") {
		checkFact(e.t, f, before[i])
	}
	if got := e.fact("other", "x-f0").Status; got != memory.StatusActive {
		e.t.Errorf("other bank's fact: status %s, want active", got)
	}
}

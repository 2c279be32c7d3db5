package storetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/mnemo-ai/mnemo/memory"
)

// writeFacts writes facts as one document of bank (item docID), each with
// its own chunk, and returns them with their document and chunk set.
func writeFacts(e *env, bank, docID string, facts ...*memory.Fact) []*memory.Fact {
	e.t.Helper()
	var texts []string
	for _, f := range facts {
		texts = append(texts, f.Text)
	}
	w := NewTestBatch(bank, docID, texts...)
	for i, f := range facts {
		f.BankID, f.DocumentID, f.ChunkID = bank, docID, w.Chunks[i].ID
	}
	w.Facts = facts
	e.writeNew(w)
	return facts
}

// SearchText searches a fact's body (memory.Fact.Body): its speaker's
// name finds it as its text does.
func testSearchTextSpeaker(e *env) {
	e.newBank("b")
	said := func(id, speaker, text string) *memory.Fact {
		f := NewTestFact("b", id, text)
		f.Speaker = speaker
		return f
	}
	writeFacts(e, "b", "doc",
		said("priya", "Priya", "I like green tea"),
		said("nobody", "", "Oolong is a tea"),
		said("tom", "Tom", "Coffee for me"),
	)
	checkIDs(e.t, "SearchText(priya)", hitIDs(e.searchText("b", 10, memory.Filter{}, "priya")), []string{"priya"})
	checkIDs(e.t, "SearchText(tom)", hitIDs(e.searchText("b", 10, memory.Filter{}, "Tom")), []string{"tom"})
	checkIDSet(e.t, "SearchText(tea)", hitIDs(e.searchText("b", 10, memory.Filter{}, "tea")), []string{"priya", "nobody"})
}

// Terms occurring more often rank higher; facts without them do not match.
func testSearchTextRanking(e *env) {
	e.newBank("b")
	writeFacts(e, "b", "doc",
		NewTestFact("b", "r1", "coffee with breakfast every single morning"),
		NewTestFact("b", "r3", "coffee coffee coffee every single morning"),
		NewTestFact("b", "r0", "tea with breakfast every single morning"),
		NewTestFact("b", "z", "zebras graze quietly"),
	)
	hits := e.searchText("b", 10, memory.Filter{}, "coffee")
	checkIDs(e.t, "SearchText(coffee)", hitIDs(hits), []string{"r3", "r1"})
	if len(hits) == 2 {
		if !(hits[0].Score > hits[1].Score) || hits[1].Score <= 0 {
			e.t.Errorf("SearchText(coffee): got scores %g, %g, want positive and decreasing", hits[0].Score, hits[1].Score)
		}
	}
	checkIDs(e.t, "SearchText(COFFEE)", hitIDs(e.searchText("b", 10, memory.Filter{}, "COFFEE")), []string{"r3", "r1"})
	checkIDs(e.t, "SearchText(coffee, k 1)", hitIDs(e.searchText("b", 1, memory.Filter{}, "coffee")), []string{"r3"})
	checkIDs(e.t, "SearchText(coffee, coffee)", hitIDs(e.searchText("b", 10, memory.Filter{}, "coffee", "coffee")), []string{"r3", "r1"})

	// Any of the terms matches.
	hits = e.searchText("b", 10, memory.Filter{}, "breakfast", "zebras")
	checkIDSet(e.t, "SearchText(breakfast, zebras)", hitIDs(hits), []string{"r1", "r0", "z"})
	checkSorted(e.t, "SearchText(breakfast, zebras)", hits)
	// A fact matching more of the terms ranks above one matching fewer.
	hits = e.searchText("b", 10, memory.Filter{}, "tea", "breakfast")
	checkIDs(e.t, "SearchText(tea, breakfast)", hitIDs(hits), []string{"r0", "r1"})
	for _, h := range hits {
		if h.Score <= 0 || math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
			e.t.Errorf("SearchText(tea, breakfast): hit %s got score %g, want a positive number", h.ID, h.Score)
		}
	}
}

// Terms match their inflections ("running" finds "runs").
func testSearchTextStemming(e *env) {
	e.newBank("b")
	writeFacts(e, "b", "doc",
		NewTestFact("b", "s1", "Melanie runs along the river every evening"),
		NewTestFact("b", "s2", "Tom was running late for the train"),
		NewTestFact("b", "s3", "The river froze in January"),
		NewTestFact("b", "s4", "Melanie adopted two cats"),
	)
	for _, c := range []struct {
		term string
		want []string
	}{
		{"running", []string{"s1", "s2"}},
		{"runs", []string{"s1", "s2"}},
		{"Rivers", []string{"s1", "s3"}},
		{"cat", []string{"s4"}},
		{"adopting", []string{"s4"}},
	} {
		checkIDSet(e.t, "SearchText("+c.term+")", hitIDs(e.searchText("b", 10, memory.Filter{}, c.term)), c.want)
	}
}

// CJK text, written without spaces, is searchable by its words: every
// store splits runs of Han, Kana and Hangul into overlapping character
// pairs (internal/lex) at index and query time, and Latin text beside it
// keeps its words.
func testSearchTextCJK(e *env) {
	e.newBank("b")
	writeFacts(e, "b", "doc",
		NewTestFact("b", "c1", "私は京都に住んでいます"),
		NewTestFact("b", "c2", "東京タワーを見た"),
		NewTestFact("b", "c3", "我住在北京"),
		NewTestFact("b", "c4", "서울에 살아요"),
		NewTestFact("b", "c5", "Tom moved to Kyoto京都 last year"),
	)
	for _, c := range []struct {
		term string
		want []string
	}{
		{"京都", []string{"c1", "c5"}},
		{"東京", []string{"c2"}},
		{"タワー", []string{"c2"}},
		{"北京", []string{"c3"}},
		{"서울", []string{"c4"}},
		{"kyoto", []string{"c5"}},
		{"大阪", nil},
	} {
		checkIDSet(e.t, "SearchText("+c.term+")", hitIDs(e.searchText("b", 10, memory.Filter{}, c.term)), c.want)
	}
}

// A term matching nothing, and no terms at all, find nothing, without error.
func testSearchTextNoMatch(e *env) {
	e.newBank("b")
	writeFacts(e, "b", "doc",
		NewTestFact("b", "f1", "Melanie plays the cello"),
		NewTestFact("b", "f2", "The cello needs new strings"),
	)
	for _, terms := range [][]string{{"xylophone"}, {"xylophone", "kazoo"}, nil, {}, {""}, {" ", "\t"}} {
		if got := e.searchText("b", 10, memory.Filter{}, terms...); len(got) != 0 {
			e.t.Errorf("SearchText(%q): got %q, want none", terms, hitIDs(got))
		}
	}
	if got := e.searchText("b", 10, memory.Filter{}); len(got) != 0 {
		e.t.Errorf("SearchText(): got %q, want none", hitIDs(got))
	}
}

// injectionTerms are query syntax of FTS5, tsquery and SQL. The corpus of
// testSearchTextInjection holds none of the words in them.
var injectionTerms = []string{
	`"`, `""`, `'`, `''`, `"'`, `NEAR(`, `NEAR`, `NEAR/2`, `*`, `cof*`, `coff:*`, `a:b`, `text:zzz`,
	`(`, `)`, `()`, `AND`, `OR`, `NOT`, `and`, `or`, `not`, `^`, `-`, `+`, `{`, `}`, `:`, `;`, `--`,
	`/*`, `%`, `_`, `\`, `&`, `|`, `!`, `<->`, `@@`, `$1`, `?`, `'; DROP TABLE facts; --`, `") OR ("`,
}

// Terms are plain words: query syntax in them never errors and never
// matches anything but the words themselves.
func testSearchTextInjection(e *env) {
	e.newBank("b")
	writeFacts(e, "b", "doc",
		NewTestFact("b", "c1", "coffee with breakfast every single morning"),
		NewTestFact("b", "z", "zebras graze quietly"),
		NewTestFact("b", "m", "Melanie runs along the river every evening"),
	)
	for _, term := range injectionTerms {
		hits, err := e.s.SearchText(e.ctx, "b", []string{term}, 10, memory.Filter{})
		if err != nil {
			e.t.Errorf("SearchText(%q): got error %v, want none", term, err)
			continue
		}
		if len(hits) != 0 {
			e.t.Errorf("SearchText(%q): got %q, want none", term, hitIDs(hits))
		}
		hits, err = e.s.SearchText(e.ctx, "b", []string{term, "coffee"}, 10, memory.Filter{})
		if err != nil {
			e.t.Errorf("SearchText(%q, coffee): got error %v, want none", term, err)
			continue
		}
		checkIDs(e.t, fmt.Sprintf("SearchText(%q, coffee)", term), hitIDs(hits), []string{"c1"})
	}
	if got := e.searchText("b", 10, memory.Filter{}, injectionTerms...); len(got) != 0 {
		e.t.Errorf("SearchText(every injection term): got %q, want none", hitIDs(got))
	}
	checkIDs(e.t, "SearchText(every injection term, zebras)", hitIDs(e.searchText("b", 10, memory.Filter{}, append(slices.Clone(injectionTerms), "zebras")...)), []string{"z"})
}

// filterCorpus is the facts of the filter tests: every one holds the word
// "garden"; they differ in kind, category (personal unless set), event
// time, status, tags and sensitivity.
func filterCorpus(bank string) []*memory.Fact {
	f := func(id string, kind memory.FactKind, tags ...string) *memory.Fact {
		x := NewTestFact(bank, id, "the garden fact "+id)
		x.Kind, x.Tags = kind, tags
		x.MentionedAt, x.CreatedAt = zeroTime, hours(-100)
		return x
	}
	g1 := f("g1", memory.KindWorld, "home")
	g1.OccurredStart = hours(1)
	g2 := f("g2", memory.KindExperience, "work")
	g2.MentionedAt, g2.Category = hours(2), memory.CategoryProject
	g3 := f("g3", memory.KindWorld, "home")
	g3.CreatedAt, g3.Status = hours(3), memory.StatusSuperseded
	g4 := f("g4", memory.KindExperience)
	g4.OccurredStart, g4.Status, g4.Category = hours(4), memory.StatusArchived, memory.CategoryProject
	g5 := f("g5", memory.KindWorld)
	g5.OccurredStart, g5.Sensitivity = hours(5), memory.SensitivitySensitive
	g6 := f("g6", memory.KindExperience, "home", "work")
	g6.OccurredStart, g6.Category = hours(6), memory.CategoryDecision
	return []*memory.Fact{g1, g2, g3, g4, g5, g6}
}

// filterCases are filters over filterCorpus with the ids that pass each.
var filterCases = []struct {
	name string
	f    memory.Filter
	want []string
}{
	{"zero: active, not sensitive", memory.Filter{}, []string{"g1", "g2", "g6"}},
	{"kind experience", memory.Filter{Kinds: []memory.FactKind{memory.KindExperience}}, []string{"g2", "g6"}},
	{"kind world", memory.Filter{Kinds: []memory.FactKind{memory.KindWorld}}, []string{"g1"}},
	{"kinds world, experience", memory.Filter{Kinds: []memory.FactKind{memory.KindWorld, memory.KindExperience}}, []string{"g1", "g2", "g6"}},
	{"from 2h (inclusive, on MentionedAt)", memory.Filter{From: hours(2)}, []string{"g2", "g6"}},
	{"to 2h (exclusive)", memory.Filter{To: hours(2)}, []string{"g1"}},
	{"from 1h to 6h", memory.Filter{From: hours(1), To: hours(6)}, []string{"g1", "g2"}},
	{"status superseded", memory.Filter{Statuses: []memory.Status{memory.StatusSuperseded}}, []string{"g3"}},
	{"status archived", memory.Filter{Statuses: []memory.Status{memory.StatusArchived}}, []string{"g4"}},
	{"every status", memory.Filter{Statuses: allStatuses}, []string{"g1", "g2", "g3", "g4", "g6"}},
	{"tag work", memory.Filter{Tags: []string{"work"}}, []string{"g2", "g6"}},
	{"tags home, nope", memory.Filter{Tags: []string{"home", "nope"}}, []string{"g1", "g6"}},
	{"tag nope", memory.Filter{Tags: []string{"nope"}}, nil},
	{"sensitive", memory.Filter{Sensitive: true}, []string{"g1", "g2", "g5", "g6"}},
	{"experience, every status, from 3h", memory.Filter{Kinds: []memory.FactKind{memory.KindExperience}, Statuses: allStatuses, From: hours(3)}, []string{"g4", "g6"}},
	{"world, every status, from 3h to 4h (on CreatedAt)", memory.Filter{Kinds: []memory.FactKind{memory.KindWorld}, Statuses: allStatuses, From: hours(3), To: hours(4)}, []string{"g3"}},
	{"tag home, every status, sensitive", memory.Filter{Tags: []string{"home"}, Statuses: allStatuses, Sensitive: true}, []string{"g1", "g3", "g6"}},
	{"everything", memory.Filter{Statuses: allStatuses, Sensitive: true}, []string{"g1", "g2", "g3", "g4", "g5", "g6"}},
	{"category personal", memory.Filter{Categories: []memory.Category{memory.CategoryPersonal}}, []string{"g1"}},
	{"categories project, decision", memory.Filter{Categories: []memory.Category{memory.CategoryProject, memory.CategoryDecision}}, []string{"g2", "g6"}},
	{"category contact", memory.Filter{Categories: []memory.Category{memory.CategoryContact}}, nil},
	{"category personal, every status, sensitive", memory.Filter{Categories: []memory.Category{memory.CategoryPersonal}, Statuses: allStatuses, Sensitive: true}, []string{"g1", "g3", "g5"}},
	{"experience, category project, every status", memory.Filter{Kinds: []memory.FactKind{memory.KindExperience}, Categories: []memory.Category{memory.CategoryProject}, Statuses: allStatuses}, []string{"g2", "g4"}},
	{"category decision, tag work", memory.Filter{Categories: []memory.Category{memory.CategoryDecision}, Tags: []string{"work"}}, []string{"g6"}},
}

func testSearchTextFilter(e *env) {
	e.newBank("b")
	writeFacts(e, "b", "doc", filterCorpus("b")...)
	writeFacts(e, "b", "other", NewTestFact("b", "x", "no matching words here"))
	for _, c := range filterCases {
		checkIDSet(e.t, "SearchText(garden), filter "+c.name, hitIDs(e.searchText("b", 10, c.f, "garden")), c.want)
	}
	if got := e.searchText("b", 2, memory.Filter{Statuses: allStatuses}, "garden"); len(got) != 2 {
		e.t.Errorf("SearchText(garden, k 2): got %d hits, want 2", len(got))
	}
}

// vectorCorpus writes n facts with random unit vectors of dimension dim
// (fixed seed) to a new bank, in batches of 100, and returns them. Their
// kinds, categories, event times, statuses, tags and sensitivity vary so that filters
// have something to do.
func vectorCorpus(e *env, bank string, n, dim int) []*memory.Fact {
	e.t.Helper()
	e.newBankDim(bank, "storetest-random", dim)
	rng := rand.New(rand.NewPCG(42, 1))
	var all []*memory.Fact
	for start := 0; start < n; start += 100 {
		var batch []*memory.Fact
		for i := start; i < min(start+100, n); i++ {
			f := NewTestFact(bank, "v"+strconv.Itoa(i), "vector fact number "+strconv.Itoa(i))
			f.Embedding = randomUnit(rng, dim)
			f.OccurredStart = hours(float64(i))
			if rng.IntN(2) == 0 {
				f.Kind = memory.KindExperience
			}
			if i%3 == 0 {
				f.Tags = []string{"third"}
			}
			f.Category = vectorCategories[i%len(vectorCategories)]
			if i%10 == 9 {
				f.Status = memory.StatusArchived
			}
			if i%20 == 7 {
				f.Sensitivity = memory.SensitivitySensitive
			}
			batch = append(batch, f)
		}
		all = append(all, writeFacts(e, bank, fmt.Sprintf("vdoc%d", start/100), batch...)...)
	}
	return all
}

// vectorCategories are the categories vectorCorpus deals out in turn.
var vectorCategories = []memory.Category{memory.CategoryPersonal, memory.CategoryProject, memory.CategoryEvent, memory.CategoryTechnical, memory.CategoryDecision}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// bruteForce returns the k facts most similar to q that pass flt, best first.
func bruteForce(facts []*memory.Fact, q []float32, k int, flt memory.Filter) []memory.Hit {
	var hits []memory.Hit
	for _, f := range facts {
		if passes(f, flt) {
			hits = append(hits, memory.Hit{ID: f.ID, Score: cosine(q, f.Embedding)})
		}
	}
	slices.SortFunc(hits, func(a, b memory.Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return 0
	})
	return hits[:min(k, len(hits))]
}

// scoreTolerance is how far a store's cosine may be from the exact one:
// vectors are float32.
const scoreTolerance = 1e-5

// checkKNN compares SearchVector hits with the brute-force answer. Hits
// whose scores tie within scoreTolerance may come in either order.
func checkKNN(e *env, what string, got, want []memory.Hit, byID map[string]*memory.Fact, q []float32, flt memory.Filter) {
	e.t.Helper()
	if len(got) != len(want) {
		e.t.Errorf("%s: got %d hits %q, want %d %q", what, len(got), hitIDs(got), len(want), hitIDs(want))
		return
	}
	seen := map[string]bool{}
	for i, h := range got {
		f, ok := byID[h.ID]
		switch {
		case !ok:
			e.t.Errorf("%s: hit %d: got unknown fact %q", what, i, h.ID)
			continue
		case seen[h.ID]:
			e.t.Errorf("%s: hit %d: got fact %s twice", what, i, h.ID)
		case !passes(f, flt):
			e.t.Errorf("%s: hit %d: got fact %s, which the filter excludes", what, i, h.ID)
		}
		seen[h.ID] = true
		if math.Abs(h.Score-want[i].Score) > scoreTolerance {
			e.t.Errorf("%s: hit %d (%s): got score %.7f, want %.7f (%s)", what, i, h.ID, h.Score, want[i].Score, want[i].ID)
		}
		if exact := cosine(q, f.Embedding); math.Abs(exact-want[i].Score) > scoreTolerance {
			e.t.Errorf("%s: hit %d: got %s (cosine %.7f), want %s (cosine %.7f)", what, i, h.ID, exact, want[i].ID, want[i].Score)
		}
	}
}

// SearchVector is exact: it returns what a brute-force cosine scan returns.
func testSearchVectorBruteForce(e *env) {
	const dim = 32
	facts := vectorCorpus(e, "v", 500, dim)
	byID := map[string]*memory.Fact{}
	for _, f := range facts {
		byID[f.ID] = f
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 20 {
		q := randomUnit(rng, dim)
		got := e.searchVector("v", q, 10, memory.Filter{})
		checkKNN(e, fmt.Sprintf("SearchVector(query %d, k 10)", i), got, bruteForce(facts, q, 10, memory.Filter{}), byID, q, memory.Filter{})
	}
	q := randomUnit(rng, dim)
	checkKNN(e, "SearchVector(k 1)", e.searchVector("v", q, 1, memory.Filter{}), bruteForce(facts, q, 1, memory.Filter{}), byID, q, memory.Filter{})
	all := memory.Filter{Statuses: allStatuses, Sensitive: true}
	checkKNN(e, "SearchVector(k 1000, every fact)", e.searchVector("v", q, 1000, all), bruteForce(facts, q, 1000, all), byID, q, all)

	// A stored vector finds its own fact first, with cosine 1.
	self := facts[17]
	hits := e.searchVector("v", self.Embedding, 3, memory.Filter{})
	if len(hits) == 0 || hits[0].ID != self.ID || math.Abs(hits[0].Score-1) > scoreTolerance {
		e.t.Errorf("SearchVector(vector of %s): got %v, want %s first with score 1", self.ID, hits, self.ID)
	}
}

// Filters apply before k: the k best among the facts that pass.
func testSearchVectorFilter(e *env) {
	const dim = 32
	facts := vectorCorpus(e, "v", 500, dim)
	byID := map[string]*memory.Fact{}
	for _, f := range facts {
		byID[f.ID] = f
	}
	filters := []struct {
		name string
		f    memory.Filter
	}{
		{"kind experience", memory.Filter{Kinds: []memory.FactKind{memory.KindExperience}}},
		{"kind world", memory.Filter{Kinds: []memory.FactKind{memory.KindWorld}}},
		{"from 100h to 300h", memory.Filter{From: hours(100), To: hours(300)}},
		{"from 450h", memory.Filter{From: hours(450)}},
		{"to 3h", memory.Filter{To: hours(3)}},
		{"from 200h to 203h", memory.Filter{From: hours(200), To: hours(203)}},
		{"from 1000h", memory.Filter{From: hours(1000)}},
		{"world, from 50h to 400h", memory.Filter{Kinds: []memory.FactKind{memory.KindWorld}, From: hours(50), To: hours(400)}},
		{"tag third", memory.Filter{Tags: []string{"third"}}},
		{"category event", memory.Filter{Categories: []memory.Category{memory.CategoryEvent}}},
		{"categories personal, technical", memory.Filter{Categories: []memory.Category{memory.CategoryPersonal, memory.CategoryTechnical}}},
		{"experience, category project, from 100h", memory.Filter{Kinds: []memory.FactKind{memory.KindExperience}, Categories: []memory.Category{memory.CategoryProject}, From: hours(100)}},
		{"status archived", memory.Filter{Statuses: []memory.Status{memory.StatusArchived}}},
		{"every status, sensitive", memory.Filter{Statuses: allStatuses, Sensitive: true}},
		{"sensitive", memory.Filter{Sensitive: true}},
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range filters {
		for i := range 5 {
			q := randomUnit(rng, dim)
			got := e.searchVector("v", q, 10, c.f)
			checkKNN(e, fmt.Sprintf("SearchVector(query %d, filter %s)", i, c.name), got, bruteForce(facts, q, 10, c.f), byID, q, c.f)
		}
	}

	// The filter cases of SearchText hold for vectors too.
	e.newBank("b")
	corpus := writeFacts(e, "b", "doc", filterCorpus("b")...)
	for _, c := range filterCases {
		checkIDSet(e.t, "SearchVector, filter "+c.name, hitIDs(e.searchVector("b", corpus[0].Embedding, 10, c.f)), c.want)
	}
}

// A filter's From and To bound the event time (OccurredStart, else
// MentionedAt, else CreatedAt): From inclusive, To exclusive, in every
// search.
func testFilterEventTime(e *env) {
	e.newBank("b")
	f := func(id string, occurred, mentioned, created float64) *memory.Fact {
		x := NewTestFact("b", id, "timed fact "+id)
		x.OccurredStart, x.MentionedAt, x.CreatedAt = zeroTime, zeroTime, zeroTime
		if occurred != unset {
			x.OccurredStart = hours(occurred)
		}
		if mentioned != unset {
			x.MentionedAt = hours(mentioned)
		}
		if created != unset {
			x.CreatedAt = hours(created)
		}
		return x
	}
	sup := f("sup", 4, unset, -100)
	sup.Status = memory.StatusSuperseded
	sens := f("sens", 4.5, unset, -100)
	sens.Sensitivity = memory.SensitivitySensitive
	arch := f("arch", 7, unset, -100)
	arch.Status = memory.StatusArchived
	writeFacts(e, "b", "doc1",
		f("o2", 5, unset, -100),
		f("late1", unset, 50, 4),   // event time 50h: MentionedAt beats CreatedAt
		f("late2", 60, 6, -100),    // event time 60h: OccurredStart beats MentionedAt
		f("c1", unset, unset, 3),   // event time 3h, from CreatedAt
		f("o1", 1, 20, 30),         // event time 1h
		f("atTo", 10, unset, -100), // excluded: To is exclusive
	)
	writeFacts(e, "b", "doc2",
		f("early", -5, unset, -100),
		f("m1", unset, 2, 40), // event time 2h, from MentionedAt
		f("atFrom", 0, unset, -100),
		sup, sens, arch,
	)
	window := func(from, to float64) memory.Filter { return memory.Filter{From: hours(from), To: hours(to)} }
	for _, c := range []struct {
		name string
		f    memory.Filter
		want []string
	}{
		{"0h to 10h", window(0, 10), []string{"atFrom", "o1", "m1", "c1", "o2"}},
		{"0h to 10h, every status", memory.Filter{From: hours(0), To: hours(10), Statuses: allStatuses}, []string{"atFrom", "o1", "m1", "c1", "sup", "o2", "arch"}},
		{"0h to 10h, sensitive", memory.Filter{From: hours(0), To: hours(10), Sensitive: true}, []string{"atFrom", "o1", "m1", "c1", "sens", "o2"}},
		{"1h to 10h", window(1, 10), []string{"o1", "m1", "c1", "o2"}},
		{"1h to 3h", window(1, 3), []string{"o1", "m1"}},
		{"100h to 200h", window(100, 200), nil},
		{"-10h to 100h", window(-10, 100), []string{"early", "atFrom", "o1", "m1", "c1", "o2", "atTo", "late1", "late2"}},
		{"from 10h", memory.Filter{From: hours(10)}, []string{"atTo", "late1", "late2"}},
		{"to 0h", memory.Filter{To: hours(0)}, []string{"early"}},
	} {
		checkIDSet(e.t, "SearchVector, filter "+c.name, e.passing("b", c.f), c.want)
		checkIDSet(e.t, "SearchText(timed), filter "+c.name, hitIDs(e.searchText("b", passingMax, c.f, "timed")), c.want)
	}
}

// unset marks a time left zero in testFilterEventTime and
// testLifecycleRecordAccess.
const unset = math.MaxFloat64

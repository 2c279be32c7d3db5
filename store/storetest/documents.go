package storetest

import (
	"math"

	"github.com/mnemo-ai/mnemo/memory"
)

// searchDocuments runs memory.DocumentSearcher.SearchDocuments, skipping
// the test when the store does not implement it (it is optional).
func (e *env) searchDocuments(bank string, k int, terms ...string) []memory.Hit {
	e.t.Helper()
	ds, ok := e.s.(memory.DocumentSearcher)
	if !ok {
		e.t.Skip("store does not implement memory.DocumentSearcher")
	}
	hits, err := ds.SearchDocuments(e.ctx, bank, terms, k)
	if err != nil {
		e.t.Fatalf("SearchDocuments(%q, %q, %d): %v", bank, terms, k, err)
	}
	return hits
}

// A document is one text: the words of all its facts count together,
// more occurrences rank higher, and documents without the terms do not
// match.
func testSearchDocumentsRanking(e *env) {
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "two", "coffee with breakfast", "more coffee at noon"))
	e.writeNew(NewTestBatch("b", "one", "tea with breakfast", "coffee at noon"))
	e.writeNew(NewTestBatch("b", "none", "zebras grazing quietly", "giraffes too"))
	hits := e.searchDocuments("b", 10, "coffee")
	checkIDs(e.t, "SearchDocuments(coffee)", hitIDs(hits), []string{"two", "one"})
	for _, h := range hits {
		if h.Score <= 0 || math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
			e.t.Errorf("SearchDocuments(coffee): document %s got score %g, want a positive number", h.ID, h.Score)
		}
	}
	if len(hits) == 2 && !(hits[0].Score > hits[1].Score) {
		e.t.Errorf("SearchDocuments(coffee): got scores %g, %g, want decreasing", hits[0].Score, hits[1].Score)
	}
	checkIDs(e.t, "SearchDocuments(coffee, k 1)", hitIDs(e.searchDocuments("b", 1, "coffee")), []string{"two"})
	// Words of different facts meet in their document.
	checkIDs(e.t, "SearchDocuments(tea, noon)", hitIDs(e.searchDocuments("b", 10, "tea", "noon")), []string{"one", "two"})
	checkIDs(e.t, "SearchDocuments(giraffes)", hitIDs(e.searchDocuments("b", 10, "giraffes")), []string{"none"})
	// Stemmed as SearchText is: "grazed" finds "grazing".
	checkIDs(e.t, "SearchDocuments(grazed)", hitIDs(e.searchDocuments("b", 10, "grazed")), []string{"none"})
	checkIDs(e.t, "SearchDocuments(walrus)", hitIDs(e.searchDocuments("b", 10, "walrus")), nil)
	checkIDs(e.t, "SearchDocuments(no terms)", hitIDs(e.searchDocuments("b", 10)), nil)
	checkIDs(e.t, "SearchDocuments(k 0)", hitIDs(e.searchDocuments("b", 0, "coffee")), nil)
	// Terms are plain words, never query syntax.
	checkIDs(e.t, "SearchDocuments(syntax)", hitIDs(e.searchDocuments("b", 10, `"coffee`, "OR", "NEAR(", "*")), []string{"two", "one"})
}

// Every fact counts whatever its status, a replaced version's words stay
// with its superseded facts, and a new document is found at once.
func testSearchDocumentsLifecycle(e *env) {
	e.newBank("b")
	e.writeNew(NewTestBatch("b", "d1", "the alpaca is named Pablo", "hello"))
	w := NewTestBatch("b", "d2", "the alpaca is gone")
	w.Supersede = []memory.Supersession{{FactID: TestFactID("d1", 0), SupersededBy: TestFactID("d2", 0), ValidTo: testTime, ExpiredAt: testTime}}
	e.writeNew(w)
	checkIDs(e.t, "SearchDocuments(pablo) after supersede", hitIDs(e.searchDocuments("b", 10, "pablo")), []string{"d1"})

	v1 := NewTestBatch("b", "v1", "a bison named Otto")
	v1.Document.ItemID = "item"
	e.writeNew(v1)
	checkIDs(e.t, "SearchDocuments(otto)", hitIDs(e.searchDocuments("b", 10, "otto")), []string{"v1"})
	v2 := NewTestBatch("b", "v2", "a yak named Yuri")
	v2.Document.ItemID = "item"
	if res := e.write(v2); !res.Replaced {
		e.t.Fatalf("Write of the item with new content: got %+v, want Replaced", res)
	}
	// The replaced version's facts stay, superseded, under their document
	// id: like any fact, whatever its status, they count for it.
	checkIDs(e.t, "SearchDocuments(otto) after replace", hitIDs(e.searchDocuments("b", 10, "otto")), []string{"v1"})
	checkIDs(e.t, "SearchDocuments(yuri) after replace", hitIDs(e.searchDocuments("b", 10, "yuri")), []string{"v2"})
	checkWindows(e, "Neighbours(replaced fact)", e.neighbours("b", []string{TestFactID("v1", 0), TestFactID("v2", 0)}, 1),
		map[string][]string{TestFactID("v1", 0): {TestFactID("v1", 0)}, TestFactID("v2", 0): {TestFactID("v2", 0)}})
}

// Documents never cross banks, and an unknown bank is ENOTFOUND.
func testSearchDocumentsIsolation(e *env) {
	e.newBank("a")
	e.newBank("b")
	e.writeNew(NewTestBatch("a", "d", "coffee in bank a"))
	e.writeNew(NewTestBatch("b", "d", "tea in bank b"))
	checkIDs(e.t, "SearchDocuments(b, coffee)", hitIDs(e.searchDocuments("b", 10, "coffee")), nil)
	checkIDs(e.t, "SearchDocuments(a, coffee)", hitIDs(e.searchDocuments("a", 10, "coffee")), []string{"d"})
	e.newBank("empty")
	checkIDs(e.t, "SearchDocuments(empty bank)", hitIDs(e.searchDocuments("empty", 10, "coffee")), nil)
	ds := e.s.(memory.DocumentSearcher)
	if _, err := ds.SearchDocuments(e.ctx, "nope", []string{"coffee"}, 10); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("SearchDocuments(unknown bank): got %v, want ENOTFOUND", err)
	}
}

// A document's words are its facts' bodies (memory.Fact.Body): a
// speaker's name finds the documents where they speak.
func testSearchDocumentsSpeaker(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "priya", "I like green tea", "and oolong")
	w.Facts[1].Speaker = "Priya"
	e.writeNew(w)
	e.writeNew(NewTestBatch("b", "tom", "Tom likes coffee"))
	checkIDs(e.t, "SearchDocuments(priya)", hitIDs(e.searchDocuments("b", 10, "priya")), []string{"priya"})
}

package storetest

import (
	"math"

	"github.com/mnemo-ai/mnemo/memory"
)

// observations returns the store's ObservationStore, or skips the test.
func (e *env) observations() memory.ObservationStore {
	e.t.Helper()
	o, ok := e.s.(memory.ObservationStore)
	if !ok {
		e.t.Skip("the store keeps no observations (memory.ObservationStore)")
	}
	return o
}

func testObservation(id, text string, sources ...string) *memory.Observation {
	return &memory.Observation{
		ID: id, Text: text, Kind: memory.ObservationTrend, SourceFactIDs: sources, EvidenceCount: len(sources),
		Embedding: TestVector(text, TestDimension), Status: memory.StatusActive, CreatedAt: testTime, UpdatedAt: testTime,
	}
}

// Observations round-trip whole, in the order asked; a second put
// replaces one (text, sources, history), and its text index follows.
func testObservationRoundTrip(e *env) {
	os := e.observations()
	e.newBank("b")
	o1 := testObservation("o1", "Alice moves house every spring", "f3", "f1", "f2")
	o1.History = []memory.ObservationChange{{Previous: "Alice moved house once", ChangedAt: hours(-24), Reason: "a second move"}}
	o2 := testObservation("o2", "Bob's running pace improves month after month", "f4")
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{o1, o2}); err != nil {
		e.t.Fatalf("PutObservations: %v", err)
	}
	got, err := os.Observations(e.ctx, "b", []string{"o2", "nope", "o1", "o2"})
	if err != nil {
		e.t.Fatalf("Observations: %v", err)
	}
	if len(got) != 2 || got[0].ID != "o2" || got[1].ID != "o1" {
		e.t.Fatalf("Observations(o2, nope, o1, o2): got %d, want o2 then o1", len(got))
	}
	want := *o1
	want.BankID, want.Embedding = "b", nil
	checkDiff(e.t, "Observations(o1)", got[1], &want)

	upd := *o1
	upd.Text, upd.SourceFactIDs, upd.EvidenceCount, upd.UpdatedAt = "Alice moves house every spring and autumn", []string{"f3", "f1", "f2", "f9"}, 4, hours(1)
	upd.History = append(append([]memory.ObservationChange(nil), o1.History...), memory.ObservationChange{Previous: o1.Text, ChangedAt: hours(1), Reason: "an autumn move"})
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{&upd}); err != nil {
		e.t.Fatalf("PutObservations(update): %v", err)
	}
	got, _ = os.Observations(e.ctx, "b", []string{"o1"})
	want = upd
	want.BankID, want.Embedding = "b", nil
	if len(got) != 1 {
		e.t.Fatalf("after update: %d observations", len(got))
	}
	checkDiff(e.t, "Observations(o1) after update", got[0], &want)
	hits, err := os.SearchObservationsText(e.ctx, "b", []string{"autumn"}, 10)
	if err != nil || len(hits) != 1 || hits[0].ID != "o1" {
		e.t.Errorf("SearchObservationsText(autumn) after update: %v, %v; want o1", hits, err)
	}

	e.newBank("other")
	if got, _ := os.Observations(e.ctx, "other", []string{"o1"}); len(got) != 0 {
		e.t.Errorf("Observations from another bank: %d, want none", len(got))
	}
	_, err = os.Observations(e.ctx, "nope", []string{"o1"})
	wantCode(e.t, "Observations(unknown bank)", err, memory.ENOTFOUND)
	err = os.PutObservations(e.ctx, "nope", []*memory.Observation{o1})
	wantCode(e.t, "PutObservations(unknown bank)", err, memory.ENOTFOUND)
	err = os.PutObservations(e.ctx, "b", []*memory.Observation{{ID: "x"}})
	wantCode(e.t, "PutObservations(no text)", err, memory.EINVALID)
}

// Observation searches rank active observations only: by cosine, and by
// full text over their words (no query syntax).
func testObservationSearch(e *env) {
	os := e.observations()
	e.newBank("b")
	arch := testObservation("o3", "Alice archived pattern about gardening")
	arch.Status = memory.StatusArchived
	obs := []*memory.Observation{
		testObservation("o1", "Alice gardens every weekend in spring"),
		testObservation("o2", "Bob cycles to work when the weather is dry"),
		arch,
	}
	if err := os.PutObservations(e.ctx, "b", obs); err != nil {
		e.t.Fatal(err)
	}
	hits, err := os.SearchObservationsVector(e.ctx, "b", obs[1].Embedding, 10)
	if err != nil {
		e.t.Fatal(err)
	}
	checkSorted(e.t, "SearchObservationsVector", hits)
	if len(hits) != 2 || hits[0].ID != "o2" || math.Abs(hits[0].Score-1) > scoreTolerance {
		e.t.Errorf("SearchObservationsVector(o2's vector): %v, want o2 first with cosine 1 and the archived one left out", hits)
	}
	if hits, _ := os.SearchObservationsVector(e.ctx, "b", obs[1].Embedding, 1); len(hits) != 1 {
		e.t.Errorf("SearchObservationsVector(k=1): %d hits", len(hits))
	}
	hits, err = os.SearchObservationsText(e.ctx, "b", []string{"gardening", "weekend"}, 10)
	if err != nil {
		e.t.Fatal(err)
	}
	checkIDs(e.t, "SearchObservationsText(gardening weekend)", hitIDs(hits), []string{"o1"})
	for _, q := range [][]string{{`"`}, {"NEAR(alice"}, {"*"}, {"body:"}, {}} {
		if _, err := os.SearchObservationsText(e.ctx, "b", q, 10); err != nil {
			e.t.Errorf("SearchObservationsText(%q): %v, want no error", q, err)
		}
	}
}

package storetest

import (
	"github.com/mnemo-ai/mnemo/memory"
)

// observationLifecycle returns the store's ObservationLifecycle, or skips
// the test.
func (e *env) observationLifecycle() memory.ObservationLifecycle {
	e.t.Helper()
	l, ok := e.s.(memory.ObservationLifecycle)
	if !ok {
		e.t.Skip("the store moves no observation status (memory.ObservationLifecycle)")
	}
	return l
}

// An archived observation is out of both searches and back in them once
// restored, exactly as it was; moving to the status it has is no change.
func testObservationStatusRoundTrip(e *env) {
	os, l := e.observations(), e.observationLifecycle()
	e.newBank("b")
	o1 := testObservation("o1", "Alice gardens every weekend in spring", "f1", "f2")
	o2 := testObservation("o2", "Bob cycles to work when the weather is dry", "f3")
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{o1, o2}); err != nil {
		e.t.Fatal(err)
	}
	before, _ := os.Observations(e.ctx, "b", []string{"o1"})
	found := func(what string, want bool) {
		e.t.Helper()
		text, err := os.SearchObservationsText(e.ctx, "b", []string{"gardens"}, 10)
		if err != nil {
			e.t.Fatal(err)
		}
		vec, err := os.SearchObservationsVector(e.ctx, "b", o1.Embedding, 10)
		if err != nil {
			e.t.Fatal(err)
		}
		gotText := len(text) == 1 && text[0].ID == "o1"
		gotVec := len(vec) > 0 && vec[0].ID == "o1"
		if gotText != want || gotVec != want || (!want && (len(text) > 0 || len(vec) > 1)) {
			e.t.Errorf("%s: text hits %v, vector hits %v; want o1 found: %v", what, text, vec, want)
		}
	}
	found("before", true)
	changed, err := l.SetObservationStatus(e.ctx, "b", []string{"o1"}, memory.StatusArchived)
	if err != nil {
		e.t.Fatalf("SetObservationStatus(archived): %v", err)
	}
	checkIDs(e.t, "SetObservationStatus(archived)", changed, []string{"o1"})
	found("archived", false)
	got, _ := os.Observations(e.ctx, "b", []string{"o1"})
	if len(got) != 1 || got[0].Status != memory.StatusArchived {
		e.t.Fatalf("Observations(o1) after archiving: %+v, want it archived", got)
	}
	if changed, err := l.SetObservationStatus(e.ctx, "b", []string{"o1"}, memory.StatusArchived); err != nil || len(changed) != 0 {
		e.t.Errorf("SetObservationStatus(archived) again: %q, %v; want no change", changed, err)
	}
	changed, err = l.SetObservationStatus(e.ctx, "b", []string{"o2", "o1"}, memory.StatusActive)
	if err != nil {
		e.t.Fatalf("SetObservationStatus(active): %v", err)
	}
	checkIDs(e.t, "SetObservationStatus(active)", changed, []string{"o1"})
	found("restored", true)
	got, _ = os.Observations(e.ctx, "b", []string{"o1"})
	if len(got) == 1 && len(before) == 1 {
		checkDiff(e.t, "Observations(o1) restored", got[0], before[0])
	}
}

// An unknown id, a bad target, no ids, a repeated id and an unknown bank
// fail and change nothing, even for the other ids of the call.
func testObservationStatusErrors(e *env) {
	os, l := e.observations(), e.observationLifecycle()
	e.newBank("b")
	e.newBank("other")
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{testObservation("o1", "Alice gardens", "f1")}); err != nil {
		e.t.Fatal(err)
	}
	if err := os.PutObservations(e.ctx, "other", []*memory.Observation{testObservation("o9", "Eve sails", "f9")}); err != nil {
		e.t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		bank string
		ids  []string
		to   memory.Status
		code string
	}{
		{"unknown id", "b", []string{"o1", "nope"}, memory.StatusArchived, memory.ENOTFOUND},
		{"another bank's", "b", []string{"o1", "o9"}, memory.StatusArchived, memory.ENOTFOUND},
		{"superseded", "b", []string{"o1"}, memory.StatusSuperseded, memory.EINVALID},
		{"no ids", "b", nil, memory.StatusArchived, memory.EINVALID},
		{"empty id", "b", []string{""}, memory.StatusArchived, memory.EINVALID},
		{"repeated", "b", []string{"o1", "o1"}, memory.StatusArchived, memory.EINVALID},
		{"unknown bank", "nope", []string{"o1"}, memory.StatusArchived, memory.ENOTFOUND},
	} {
		_, err := l.SetObservationStatus(e.ctx, c.bank, c.ids, c.to)
		wantCode(e.t, "SetObservationStatus("+c.name+")", err, c.code)
	}
	got, _ := os.Observations(e.ctx, "b", []string{"o1"})
	if len(got) != 1 || got[0].Status != memory.StatusActive {
		e.t.Errorf("after refused moves: %+v, want o1 active", got)
	}
}

// Each access adds one and sets the last access; unknown ids are skipped;
// another bank's observation is untouched.
func testObservationAccess(e *env) {
	os, l := e.observations(), e.observationLifecycle()
	e.newBank("b")
	e.newBank("other")
	if err := os.PutObservations(e.ctx, "b", []*memory.Observation{testObservation("o1", "Alice gardens", "f1"), testObservation("o2", "Bob cycles", "f2")}); err != nil {
		e.t.Fatal(err)
	}
	if err := os.PutObservations(e.ctx, "other", []*memory.Observation{testObservation("o1", "Eve sails", "f9")}); err != nil {
		e.t.Fatal(err)
	}
	if err := l.RecordObservationAccess(e.ctx, "b", []string{"o1", "nope"}, hours(1)); err != nil {
		e.t.Fatalf("RecordObservationAccess: %v", err)
	}
	if err := l.RecordObservationAccess(e.ctx, "b", []string{"o1"}, hours(3)); err != nil {
		e.t.Fatalf("RecordObservationAccess: %v", err)
	}
	got, _ := os.Observations(e.ctx, "b", []string{"o1", "o2"})
	if len(got) != 2 || got[0].AccessCount != 2 || !got[0].LastAccessed.Equal(hours(3)) || got[1].AccessCount != 0 || !got[1].LastAccessed.IsZero() {
		e.t.Errorf("after two accesses of o1: %+v", got)
	}
	if got, _ := os.Observations(e.ctx, "other", []string{"o1"}); len(got) != 1 || got[0].AccessCount != 0 {
		e.t.Errorf("another bank's o1: %+v, want untouched", got)
	}
	wantCode(e.t, "RecordObservationAccess(unknown bank)", l.RecordObservationAccess(e.ctx, "nope", []string{"o1"}, hours(1)), memory.ENOTFOUND)
}

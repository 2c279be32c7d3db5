package storetest

import (
	"math"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Temporal group checks memory.EntityTimelines (the busy entities of
// a window with their counts, an entity's facts in time order, marks
// that leave out entities with nothing new) and memory.ImportanceScores
// (unscored facts, scores set once).

// days returns testTime moved by d days.
func days(d float64) time.Time { return hours(24 * d) }

// timelineBatch writes document doc of bank: facts about Zara at days
// -4, -3, -2 and -1 (occurred), one at day -40 (out of a 30-day window)
// and one only mentioned at day -1.5; facts about Quentin at days -2
// and -1; and one fact about Ugo at day -1. Zara's day -3 fact is
// archived by the caller when asked. It returns the fact ids by name.
func timelineBatch(bank, doc string) (*memory.WriteBatch, map[string]string) {
	texts := []string{"z-4", "z-3", "z-2", "z-1", "z-40", "z-mentioned", "q-2", "q-1", "u-1"}
	w := NewTestBatch(bank, doc, texts...)
	ids := map[string]string{}
	zara, quentin, ugo := memory.EntityID("Zara"), memory.EntityID("Quentin"), memory.EntityID("Ugo")
	at := map[string]float64{"z-4": -4, "z-3": -3, "z-2": -2, "z-1": -1, "z-40": -40, "q-2": -2, "q-1": -1, "u-1": -1}
	for i, f := range w.Facts {
		ids[texts[i]] = f.ID
		f.CreatedAt = days(-50) // the transaction time never decides "recent"
		f.MentionedAt = days(-50)
		if d, ok := at[texts[i]]; ok {
			f.OccurredStart = days(d)
		} else {
			f.MentionedAt = days(-1.5)
		}
		ent := zara
		switch texts[i][0] {
		case 'q':
			ent = quentin
		case 'u':
			ent = ugo
		}
		w.Refs = append(w.Refs, memory.EntityRef{FactID: f.ID, EntityID: ent})
	}
	w.Entities = []memory.EntityUpsert{
		{Entity: memory.Entity{ID: zara, Name: "Zara", Type: memory.EntityPerson}, Mentions: 6, Episodes: 1},
		{Entity: memory.Entity{ID: quentin, Name: "Quentin", Type: memory.EntityPerson}, Mentions: 2, Episodes: 1},
		{Entity: memory.Entity{ID: ugo, Name: "Ugo", Type: memory.EntityPlace}, Mentions: 1, Episodes: 1},
	}
	return w, ids
}

// window is the 30 days up to testTime.
func window(q memory.BusyQuery) memory.BusyQuery {
	q.From, q.To = days(-30), days(0)
	return q
}

func (e *env) busy(bank string, q memory.BusyQuery) []memory.BusyEntity {
	e.t.Helper()
	got, err := e.s.BusyEntities(e.ctx, bank, q)
	if err != nil {
		e.t.Fatalf("BusyEntities(%+v): %v", q, err)
	}
	return got
}

func busyNames(bs []memory.BusyEntity) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	return out
}

// Busy: Zara has five facts in the window (the day -40 one is out, the
// mentioned-only one is in), Quentin two, Ugo one; MinFacts and Limit
// cut the list, most facts first; an archived fact no longer counts;
// NewestSeq is the highest Seq among the counted facts.
func testTemporalBusy(e *env) {
	e.newBank("b")
	w, ids := timelineBatch("b", "d1")
	e.writeNew(w)
	zara := e.fact("b", ids["z-mentioned"])
	got := e.busy("b", window(memory.BusyQuery{MinFacts: 3}))
	if len(got) != 1 || got[0].ID != memory.EntityID("Zara") || got[0].Name != "Zara" || got[0].Type != memory.EntityPerson ||
		got[0].Facts != 5 || got[0].NewestSeq != zara.Seq {
		e.t.Fatalf("BusyEntities(min 3): got %+v, want Zara with 5 facts, newest seq %d", got, zara.Seq)
	}
	checkIDs(e.t, "BusyEntities(min 1)", busyNames(e.busy("b", window(memory.BusyQuery{MinFacts: 1}))), []string{"Zara", "Quentin", "Ugo"})
	checkIDs(e.t, "BusyEntities(min 1, limit 2)", busyNames(e.busy("b", window(memory.BusyQuery{MinFacts: 1, Limit: 2}))), []string{"Zara", "Quentin"})
	checkIDs(e.t, "BusyEntities(open window)", busyNames(e.busy("b", memory.BusyQuery{MinFacts: 6})), []string{"Zara"})
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{ids["z-3"], ids["z-mentioned"]}, memory.StatusArchived); err != nil {
		e.t.Fatal(err)
	}
	got = e.busy("b", window(memory.BusyQuery{MinFacts: 3}))
	if z := e.fact("b", ids["z-1"]); len(got) != 1 || got[0].Facts != 3 || got[0].NewestSeq != z.Seq {
		e.t.Errorf("BusyEntities after archiving two: got %+v, want Zara with 3 facts, newest seq %d", got, z.Seq)
	}
}

// Marks: an entity marked at its newest Seq is left out for that pass
// (not for another, nor without a pass, nor in another bank); a mark
// never moves back; a new fact in the window brings it back.
func testTemporalMarks(e *env) {
	e.newBank("b")
	e.newBank("other")
	w, _ := timelineBatch("b", "d1")
	e.writeNew(w)
	w2, _ := timelineBatch("other", "d1")
	e.writeNew(w2)
	q := window(memory.BusyQuery{MinFacts: 2, Pass: "temporal"})
	all := e.busy("b", q)
	checkIDs(e.t, "BusyEntities before marks", busyNames(all), []string{"Zara", "Quentin"})
	zara := all[0]
	mark := func(bank, pass string, seq int64) {
		e.t.Helper()
		if err := e.s.MarkEntities(e.ctx, bank, pass, []memory.EntityMark{{EntityID: zara.ID, Seq: seq, At: testTime}}); err != nil {
			e.t.Fatalf("MarkEntities(%s, %d): %v", pass, seq, err)
		}
	}
	mark("b", "temporal", zara.NewestSeq-1)
	checkIDs(e.t, "BusyEntities, marked under the newest", busyNames(e.busy("b", q)), []string{"Zara", "Quentin"})
	mark("b", "temporal", zara.NewestSeq)
	checkIDs(e.t, "BusyEntities, marked", busyNames(e.busy("b", q)), []string{"Quentin"})
	mark("b", "temporal", 1)
	checkIDs(e.t, "BusyEntities, mark moved back", busyNames(e.busy("b", q)), []string{"Quentin"})
	other := q
	other.Pass = "communities"
	checkIDs(e.t, "BusyEntities, another pass", busyNames(e.busy("b", other)), []string{"Zara", "Quentin"})
	other.Pass = ""
	checkIDs(e.t, "BusyEntities, no pass", busyNames(e.busy("b", other)), []string{"Zara", "Quentin"})
	checkIDs(e.t, "BusyEntities, another bank", busyNames(e.busy("other", q)), []string{"Zara", "Quentin"})

	nw := NewTestBatch("b", "d2", "z-0")
	nw.Facts[0].OccurredStart = days(-0.5)
	nw.Refs = []memory.EntityRef{{FactID: nw.Facts[0].ID, EntityID: zara.ID}}
	nw.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: zara.ID, Name: "Zara", Type: memory.EntityPerson}, Mentions: 1, Episodes: 1}}
	e.writeNew(nw)
	got := e.busy("b", q)
	if f := e.fact("b", nw.Facts[0].ID); len(got) != 2 || got[0].ID != zara.ID || got[0].NewestSeq != f.Seq || got[0].Facts != zara.Facts+1 {
		e.t.Errorf("BusyEntities after a new fact: got %+v, want Zara back with %d facts, newest seq %d", got, zara.Facts+1, f.Seq)
	}
}

// Timeline: an entity's facts in the window, oldest first by event time;
// a limit keeps the latest; archived facts and other entities' facts are
// not in it; an unknown entity has none.
func testTemporalTimeline(e *env) {
	e.newBank("b")
	w, ids := timelineBatch("b", "d1")
	e.writeNew(w)
	zara := memory.EntityID("Zara")
	timeline := func(entity string, from, to time.Time, limit int) []string {
		e.t.Helper()
		fs, err := e.s.EntityTimeline(e.ctx, "b", entity, from, to, limit)
		if err != nil {
			e.t.Fatalf("EntityTimeline: %v", err)
		}
		for _, f := range fs {
			if len(f.Embedding) != 0 || f.Text == "" {
				e.t.Errorf("EntityTimeline: fact %s: %d-dimensional embedding, text %q; want no embedding, the text", f.ID, len(f.Embedding), f.Text)
			}
		}
		return factIDs(fs)
	}
	want := []string{ids["z-4"], ids["z-3"], ids["z-2"], ids["z-mentioned"], ids["z-1"]}
	checkIDs(e.t, "EntityTimeline(Zara, 30 days)", timeline(zara, days(-30), days(0), 0), want)
	checkIDs(e.t, "EntityTimeline(Zara, limit 2)", timeline(zara, days(-30), days(0), 2), want[3:])
	checkIDs(e.t, "EntityTimeline(Zara, open)", timeline(zara, zeroTime, zeroTime, 0), append([]string{ids["z-40"]}, want...))
	checkIDs(e.t, "EntityTimeline(Zara, days -3 to -2)", timeline(zara, days(-3), days(-2), 0), want[1:3])
	checkIDs(e.t, "EntityTimeline(unknown)", timeline("ent_nobody", zeroTime, zeroTime, 0), nil)
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{ids["z-3"]}, memory.StatusArchived); err != nil {
		e.t.Fatal(err)
	}
	checkIDs(e.t, "EntityTimeline(Zara) after archiving one", timeline(zara, days(-30), days(0), 0), []string{ids["z-4"], ids["z-2"], ids["z-mentioned"], ids["z-1"]})
}

// Importance: unscored active facts oldest first, a limit; a score sets
// importance and takes the fact out of the list for good, whatever its
// status does later; unknown ids are skipped; a bad score changes
// nothing; a replaced document's facts are unscored again.
func testTemporalImportance(e *env) {
	e.newBank("b")
	w := NewTestBatch("b", "d1", "a", "b", "c", "d")
	e.writeNew(w)
	ids := batchIDs(w)
	unscored := func(limit int) []string {
		e.t.Helper()
		fs, err := e.s.UnscoredFacts(e.ctx, "b", limit)
		if err != nil {
			e.t.Fatalf("UnscoredFacts: %v", err)
		}
		return factIDs(fs)
	}
	checkIDs(e.t, "UnscoredFacts", unscored(0), ids)
	checkIDs(e.t, "UnscoredFacts(limit 2)", unscored(2), ids[:2])
	if err := e.s.SetImportance(e.ctx, "b", map[string]float64{ids[0]: 0.9, ids[2]: 0, "nope": 0.4}, testTime); err != nil {
		e.t.Fatalf("SetImportance: %v", err)
	}
	if f := e.fact("b", ids[0]); f.Importance != 0.9 || f.Text != "a" || f.Confidence != 0.9 {
		e.t.Errorf("fact after SetImportance: importance %v, text %q, confidence %v; want 0.9, a, 0.9", f.Importance, f.Text, f.Confidence)
	}
	if f := e.fact("b", ids[2]); f.Importance != 0 {
		e.t.Errorf("fact scored 0: importance %v", f.Importance)
	}
	checkIDs(e.t, "UnscoredFacts after scoring two", unscored(0), []string{ids[1], ids[3]})
	for _, bad := range []map[string]float64{{ids[1]: 1.5}, {ids[1]: -0.1}, {ids[1]: math.NaN()}, {"": 0.5}} {
		if err := e.s.SetImportance(e.ctx, "b", bad, testTime); memory.ErrorCode(err) != memory.EINVALID {
			e.t.Errorf("SetImportance(%v): %v, want EINVALID", bad, err)
		}
	}
	if f := e.fact("b", ids[1]); f.Importance != 0.5 {
		e.t.Errorf("fact after refused scores: importance %v, want 0.5", f.Importance)
	}
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{ids[0], ids[1]}, memory.StatusArchived); err != nil {
		e.t.Fatal(err)
	}
	checkIDs(e.t, "UnscoredFacts after archiving", unscored(0), []string{ids[3]})
	if _, err := e.s.SetFactStatus(e.ctx, "b", []string{ids[0], ids[1]}, memory.StatusActive); err != nil {
		e.t.Fatal(err)
	}
	checkIDs(e.t, "UnscoredFacts after restoring", unscored(0), []string{ids[1], ids[3]})
	// The same document with new content: its facts are written anew.
	e.write(NewTestBatch("b", "d1", "a", "b2"))
	checkIDs(e.t, "UnscoredFacts after replacing the document", unscored(0), ids[:2])
}

// Errors: bad queries are EINVALID, an unknown bank ENOTFOUND, and a
// refused mark stores nothing.
func testTemporalErrors(e *env) {
	e.newBank("b")
	w, _ := timelineBatch("b", "d1")
	e.writeNew(w)
	for _, q := range []memory.BusyQuery{{MinFacts: 0}, {MinFacts: 1, Limit: -1}, {MinFacts: 1, Limit: memory.MaxPageSize + 1}, {MinFacts: 1, From: days(0), To: days(-1)}} {
		if _, err := e.s.BusyEntities(e.ctx, "b", q); memory.ErrorCode(err) != memory.EINVALID {
			e.t.Errorf("BusyEntities(%+v): %v, want EINVALID", q, err)
		}
	}
	if _, err := e.s.EntityTimeline(e.ctx, "b", memory.EntityID("Zara"), zeroTime, zeroTime, -1); memory.ErrorCode(err) != memory.EINVALID {
		e.t.Errorf("EntityTimeline(limit -1): %v, want EINVALID", err)
	}
	if _, err := e.s.UnscoredFacts(e.ctx, "b", memory.MaxPageSize+1); memory.ErrorCode(err) != memory.EINVALID {
		e.t.Errorf("UnscoredFacts(limit too large): %v, want EINVALID", err)
	}
	zara := memory.EntityID("Zara")
	for _, c := range []struct {
		pass  string
		marks []memory.EntityMark
	}{
		{"", []memory.EntityMark{{EntityID: zara, Seq: 100}}},
		{"temporal", []memory.EntityMark{{EntityID: zara, Seq: 100}, {EntityID: "", Seq: 1}}},
		{"temporal", []memory.EntityMark{{EntityID: zara, Seq: 100}, {EntityID: "x", Seq: -1}}},
	} {
		if err := e.s.MarkEntities(e.ctx, "b", c.pass, c.marks); memory.ErrorCode(err) != memory.EINVALID {
			e.t.Errorf("MarkEntities(%q, %+v): %v, want EINVALID", c.pass, c.marks, err)
		}
	}
	checkIDs(e.t, "BusyEntities after refused marks", busyNames(e.busy("b", window(memory.BusyQuery{MinFacts: 3, Pass: "temporal"}))), []string{"Zara"})
	q := memory.BusyQuery{MinFacts: 1}
	if _, err := e.s.BusyEntities(e.ctx, "nope", q); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("BusyEntities(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := e.s.EntityTimeline(e.ctx, "nope", zara, zeroTime, zeroTime, 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("EntityTimeline(unknown bank): %v, want ENOTFOUND", err)
	}
	if err := e.s.MarkEntities(e.ctx, "nope", "temporal", []memory.EntityMark{{EntityID: zara, Seq: 1}}); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("MarkEntities(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := e.s.UnscoredFacts(e.ctx, "nope", 0); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("UnscoredFacts(unknown bank): %v, want ENOTFOUND", err)
	}
	if err := e.s.SetImportance(e.ctx, "nope", map[string]float64{"x": 0.5}, testTime); memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Errorf("SetImportance(unknown bank): %v, want ENOTFOUND", err)
	}
}

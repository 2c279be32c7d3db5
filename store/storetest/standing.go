package storetest

import (
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// standing returns the store's StandingAnswers.
func (e *env) standing() memory.StandingAnswers { return e.s }

func testQuestion(id, text string, pinned float64) *memory.StandingQuestion {
	return &memory.StandingQuestion{ID: id, Question: text, CreatedAt: hours(pinned)}
}

// A pinned question lists without an answer until one is set; an answer
// replaces the previous one whole (text, evidence, time) and keeps the
// question and its pin time; questions list oldest pinned first (ties
// by id); unpinning removes question and answer; another bank's
// questions are its own.
func testStandingRoundTrip(e *env) {
	st := e.standing()
	e.newBank("b")
	e.newBank("c")
	for _, q := range []*memory.StandingQuestion{
		testQuestion("q-late", "Where does Sam live?", 5),
		testQuestion("q-b", "What does the user prefer for breakfast?", 1),
		testQuestion("q-a", "Who is Sam's manager?", 1),
	} {
		if err := st.PinQuestion(e.ctx, "b", q); err != nil {
			e.t.Fatalf("PinQuestion(%s): %v", q.ID, err)
		}
	}
	if err := st.PinQuestion(e.ctx, "c", testQuestion("q-c", "What is Ada's favourite tea?", 0)); err != nil {
		e.t.Fatalf("PinQuestion(c): %v", err)
	}
	list := func(bank string) []*memory.StandingQuestion {
		e.t.Helper()
		got, err := st.StandingQuestions(e.ctx, bank)
		if err != nil {
			e.t.Fatalf("StandingQuestions(%s): %v", bank, err)
		}
		return got
	}
	ids := func(qs []*memory.StandingQuestion) []string {
		out := []string{}
		for _, q := range qs {
			out = append(out, q.ID)
		}
		return out
	}
	got := list("b")
	if g, want := ids(got), []string{"q-a", "q-b", "q-late"}; !slices.Equal(g, want) {
		e.t.Fatalf("StandingQuestions(b) = %v, want %v", g, want)
	}
	checkDiff(e.t, "q-b pinned", got[1], &memory.StandingQuestion{ID: "q-b", BankID: "b", Question: "What does the user prefer for breakfast?", CreatedAt: hours(1)})

	ev := []string{"f-2", "obs-1", "f-1"}
	if err := st.SetStandingAnswer(e.ctx, "b", "q-b", "Porridge with blueberries.", ev, hours(2)); err != nil {
		e.t.Fatalf("SetStandingAnswer: %v", err)
	}
	want := &memory.StandingQuestion{ID: "q-b", BankID: "b", Question: "What does the user prefer for breakfast?", CreatedAt: hours(1),
		Answer: "Porridge with blueberries.", MemoryIDs: ev, AnsweredAt: hours(2)}
	checkDiff(e.t, "q-b answered", list("b")[1], want)
	one, err := st.StandingQuestion(e.ctx, "b", "q-b")
	if err != nil {
		e.t.Fatalf("StandingQuestion(q-b): %v", err)
	}
	checkDiff(e.t, "StandingQuestion(q-b)", one, want)
	if one, err := st.StandingQuestion(e.ctx, "b", "q-a"); err != nil || one.Answer != "" || !one.AnsweredAt.IsZero() || one.Question != "Who is Sam's manager?" {
		e.t.Errorf("StandingQuestion(q-a) = %+v, %v; want it unanswered", one, err)
	}

	if err := st.SetStandingAnswer(e.ctx, "b", "q-b", "Toast, since March.", []string{"f-9"}, hours(3)); err != nil {
		e.t.Fatalf("SetStandingAnswer(again): %v", err)
	}
	want.Answer, want.MemoryIDs, want.AnsweredAt = "Toast, since March.", []string{"f-9"}, hours(3)
	checkDiff(e.t, "q-b answered again", list("b")[1], want)
	if got := list("b"); got[0].Answer != "" || !got[0].AnsweredAt.IsZero() || len(got[0].MemoryIDs) != 0 {
		e.t.Errorf("q-a changed with q-b: %+v", got[0])
	}

	if err := st.UnpinQuestion(e.ctx, "b", "q-b"); err != nil {
		e.t.Fatalf("UnpinQuestion: %v", err)
	}
	if g, want := ids(list("b")), []string{"q-a", "q-late"}; !slices.Equal(g, want) {
		e.t.Errorf("after unpinning q-b: %v, want %v", g, want)
	}
	if g := ids(list("c")); !slices.Equal(g, []string{"q-c"}) {
		e.t.Errorf("StandingQuestions(c) = %v, want q-c alone", g)
	}
	// Pinned again after an unpin, it starts with no answer.
	if err := st.PinQuestion(e.ctx, "b", testQuestion("q-b", "What does the user prefer for breakfast?", 6)); err != nil {
		e.t.Fatalf("PinQuestion(again): %v", err)
	}
	if got := list("b"); len(got) != 3 || got[2].ID != "q-b" || got[2].Answer != "" || len(got[2].MemoryIDs) != 0 {
		e.t.Errorf("re-pinned q-b: %v", ids(got))
	}
	// Deleting the bank takes its questions.
	if err := e.s.DeleteBank(e.ctx, "b"); err != nil {
		e.t.Fatal(err)
	}
	e.newBank("b")
	if got := list("b"); len(got) != 0 {
		e.t.Errorf("a bank made again after its deletion lists %v", ids(got))
	}
}

// Bad questions and answers, a second pin of an id, an unknown id and
// an unknown bank are refused, and a refusal stores nothing.
func testStandingErrors(e *env) {
	st := e.standing()
	e.newBank("b")
	e.newBank("c")
	if got, err := st.StandingQuestions(e.ctx, "b"); err != nil || len(got) != 0 {
		e.t.Errorf("StandingQuestions(empty) = %d, %v; want none", len(got), err)
	}
	for name, bad := range map[string]*memory.StandingQuestion{
		"nil":       nil,
		"no id":     {Question: "Why?", CreatedAt: testTime},
		"empty":     {ID: "x", Question: " ?! ", CreatedAt: testTime},
		"bad UTF-8": {ID: "x", Question: "caf\xe9?", CreatedAt: testTime},
		"huge":      {ID: "x", Question: strings.Repeat("why ", memory.MaxStandingQuestionBytes), CreatedAt: testTime},
		"no time":   {ID: "x", Question: "Why?"},
	} {
		wantCode(e.t, "PinQuestion("+name+")", st.PinQuestion(e.ctx, "b", bad), memory.EINVALID)
	}
	if got, _ := st.StandingQuestions(e.ctx, "b"); len(got) != 0 {
		e.t.Errorf("refused pins stored %d questions", len(got))
	}
	q := testQuestion("q1", "Where does Sam live?", 0)
	if err := st.PinQuestion(e.ctx, "b", q); err != nil {
		e.t.Fatal(err)
	}
	wantCode(e.t, "PinQuestion(same id)", st.PinQuestion(e.ctx, "b", testQuestion("q1", "Another question?", 1)), memory.ECONFLICT)
	for name, c := range map[string]struct {
		answer string
		ids    []string
		at     float64
		zero   bool
	}{
		"empty answer": {answer: " ", at: 1},
		"bad UTF-8":    {answer: "\xff", at: 1},
		"huge":         {answer: strings.Repeat("a", memory.MaxStandingAnswerBytes+1), at: 1},
		"empty id":     {answer: "Lisbon", ids: []string{"f1", ""}, at: 1},
		"no time":      {answer: "Lisbon", zero: true},
	} {
		at := hours(c.at)
		if c.zero {
			at = zeroTime
		}
		wantCode(e.t, "SetStandingAnswer("+name+")", st.SetStandingAnswer(e.ctx, "b", "q1", c.answer, c.ids, at), memory.EINVALID)
	}
	if got, _ := st.StandingQuestions(e.ctx, "b"); len(got) != 1 || got[0].Question != q.Question || got[0].Answer != "" {
		e.t.Errorf("after refusals: %+v, want q1 as pinned", got)
	}
	wantCode(e.t, "SetStandingAnswer(unknown id)", st.SetStandingAnswer(e.ctx, "b", "nope", "Lisbon", nil, hours(1)), memory.ENOTFOUND)
	wantCode(e.t, "UnpinQuestion(unknown id)", st.UnpinQuestion(e.ctx, "b", "nope"), memory.ENOTFOUND)
	_, err := st.StandingQuestion(e.ctx, "b", "nope")
	wantCode(e.t, "StandingQuestion(unknown id)", err, memory.ENOTFOUND)
	_, err = st.StandingQuestion(e.ctx, "nope", "q1")
	wantCode(e.t, "StandingQuestion(unknown bank)", err, memory.ENOTFOUND)
	if _, err := st.StandingQuestion(e.ctx, "c", "q1"); err == nil {
		e.t.Errorf("StandingQuestion found bank b's question in bank c")
	}
	wantCode(e.t, "PinQuestion(unknown bank)", st.PinQuestion(e.ctx, "nope", testQuestion("q2", "Why?", 0)), memory.ENOTFOUND)
	_, err = st.StandingQuestions(e.ctx, "nope")
	wantCode(e.t, "StandingQuestions(unknown bank)", err, memory.ENOTFOUND)
	wantCode(e.t, "SetStandingAnswer(unknown bank)", st.SetStandingAnswer(e.ctx, "nope", "q1", "Lisbon", nil, hours(1)), memory.ENOTFOUND)
	wantCode(e.t, "UnpinQuestion(unknown bank)", st.UnpinQuestion(e.ctx, "nope", "q1"), memory.ENOTFOUND)
	// Unpinned, an answer for it is refused: the standing pass may
	// finish after an unpin and must not bring the question back.
	if err := st.UnpinQuestion(e.ctx, "b", "q1"); err != nil {
		e.t.Fatal(err)
	}
	wantCode(e.t, "SetStandingAnswer(unpinned)", st.SetStandingAnswer(e.ctx, "b", "q1", "Lisbon", nil, hours(2)), memory.ENOTFOUND)
	if got, _ := st.StandingQuestions(e.ctx, "b"); len(got) != 0 {
		e.t.Errorf("an answer to an unpinned question brought it back: %+v", got)
	}
}

package importer

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const tinyLongMemEval = "testdata/longmemeval-tiny.json"

func TestParseLongMemEvalTime(t *testing.T) {
	got, err := ParseLongMemEvalTime("2023/05/20 (Sat) 02:21")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2023, 5, 20, 2, 21, 0, 0, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"", "2023-05-20 02:21", "2023/05/20 02:21", "2023/02/30 (Thu) 10:00"} {
		if _, err := ParseLongMemEvalTime(bad); err == nil {
			t.Errorf("%q parsed, want an error", bad)
		}
	}
}

func TestLoadLongMemEval_Tiny(t *testing.T) {
	d, err := LoadLongMemEval(tinyLongMemEval)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range d.Questions {
		ids = append(ids, q.ID)
	}
	if want := []string{"t1", "t2", "t3_abs", "t4"}; !slices.Equal(ids, want) {
		t.Fatalf("questions %v, want %v", ids, want)
	}
	q1, q2, q3, q4 := d.Questions[0], d.Questions[1], d.Questions[2], d.Questions[3]

	if q1.Type != "single-session-user" || q1.Answer != "Porto" || q1.Question != "Which city did I move to for my new job?" {
		t.Errorf("t1 = %+v", q1)
	}
	if want := time.Date(2024, 3, 12, 18, 30, 0, 0, time.UTC); !q1.Now().Equal(want) {
		t.Errorf("t1 now = %v, want %v", q1.Now(), want)
	}
	if q2.Answer != "7" {
		t.Errorf("t2 answer = %q, want the number as text, \"7\"", q2.Answer)
	}

	// Gold (PROTOCOL §3.2.3): user turns with has_answer in answer sessions.
	gold := func(q *LongMemEvalQuestion) []string { return q.GoldTurns() }
	if got, want := gold(q1), []string{"answer_t1_1_3"}; !slices.Equal(got, want) {
		t.Errorf("t1 gold turns = %v, want %v", got, want)
	}
	if got, want := gold(q2), []string{"answer_t2_1_1", "answer_t2_2_2"}; !slices.Equal(got, want) {
		t.Errorf("t2 gold turns = %v, want %v (positions count assistant turns)", got, want)
	}
	if got, want := q2.GoldSessions(), []string{"answer_t2_1", "answer_t2_2"}; !slices.Equal(got, want) {
		t.Errorf("t2 gold sessions = %v, want %v", got, want)
	}
	if got := gold(q4); len(got) != 0 {
		t.Errorf("t4 gold turns = %v, want none: an assistant turn is never gold", got)
	}

	// Evaluated set (§3.2.4): no _abs, at least one gold turn.
	for _, tt := range []struct {
		q          *LongMemEvalQuestion
		abs, evald bool
	}{{q1, false, true}, {q2, false, true}, {q3, true, false}, {q4, false, false}} {
		if tt.q.Abstention() != tt.abs || tt.q.Evaluated() != tt.evald {
			t.Errorf("%s: abstention %v evaluated %v, want %v %v", tt.q.ID, tt.q.Abstention(), tt.q.Evaluated(), tt.abs, tt.evald)
		}
	}

	reqs := q1.RetainRequests("b1")
	if len(reqs) != 2 {
		t.Fatalf("t1: %d requests, want one per session (2)", len(reqs))
	}
	r := reqs[1]
	if r.BankID != "b1" || r.Source != LongMemEvalSource || r.ItemID != "t1/answer_t1_1" ||
		!r.At.Equal(time.Date(2024, 3, 5, 21, 15, 0, 0, time.UTC)) {
		t.Errorf("t1 session 2 request = %+v", r)
	}
	var msgIDs []string
	for _, m := range r.Messages {
		msgIDs = append(msgIDs, m.ID+"/"+m.Speaker)
		if !m.Time.Equal(r.At) {
			t.Errorf("message %s time %v, want the session's %v", m.ID, m.Time, r.At)
		}
	}
	if want := []string{"answer_t1_1_1/user", "answer_t1_1_2/assistant", "answer_t1_1_3/user"}; !slices.Equal(msgIDs, want) {
		t.Errorf("messages %v, want %v (the empty fourth turn left out)", msgIDs, want)
	}
}

// The engine must never see the answer, the question type or has_answer:
// nothing of them reaches the retain requests.
func TestLongMemEval_RetainHidesGold(t *testing.T) {
	d, err := LoadLongMemEval(tinyLongMemEval)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range d.Questions {
		b, err := json.Marshal(q.RetainRequests("b"))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{q.Type, "has_answer", "HasAnswer"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s: the retain requests mention %q", q.ID, secret)
			}
		}
	}
}

func TestReadLongMemEval_Err(t *testing.T) {
	valid := func(edit func(m map[string]any)) string {
		m := map[string]any{
			"question_id": "x", "question_type": "multi-session", "question": "Q?", "answer": "A",
			"question_date":        "2024/04/02 (Tue) 08:00",
			"haystack_session_ids": []string{"s"},
			"haystack_dates":       []string{"2024/03/15 (Fri) 10:10"},
			"haystack_sessions":    [][]map[string]any{{{"role": "user", "content": "hi"}}},
			"answer_session_ids":   []string{"s"},
		}
		edit(m)
		b, _ := json.Marshal([]any{m})
		return string(b)
	}
	if _, err := ReadLongMemEval(strings.NewReader(valid(func(map[string]any) {}))); err != nil {
		t.Fatalf("the valid base case: %v", err)
	}
	one := strings.TrimSuffix(strings.TrimPrefix(valid(func(map[string]any) {}), "["), "]")
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", "[{", "decode"},
		{"no id", valid(func(m map[string]any) { delete(m, "question_id") }), "no question_id"},
		{"repeated id", "[" + one + "," + one + "]", "repeated"},
		{"no question", valid(func(m map[string]any) { m["question"] = " " }), "no question"},
		{"lengths", valid(func(m map[string]any) { m["haystack_dates"] = []string{} }), "as many"},
		{"bad date", valid(func(m map[string]any) { m["haystack_dates"] = []string{"yesterday"} }), "yesterday"},
		{"bad question date", valid(func(m map[string]any) { m["question_date"] = "soon" }), "question_date"},
		{"bad role", valid(func(m map[string]any) {
			m["haystack_sessions"] = [][]map[string]any{{{"role": "system", "content": "hi"}}}
		}), "role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadLongMemEval(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// The schema fixture of the shared benchmark folder reads, and its
// evaluated set is the set its expected reference outputs score.
func TestLoadLongMemEval_SharedFixture(t *testing.T) {
	d, err := LoadLongMemEval(sharedFile(t, "bench", "longmemeval_format_fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	var evaluated []string
	for _, q := range d.Questions {
		if q.Evaluated() {
			evaluated = append(evaluated, q.ID)
		}
		if len(q.RetainRequests(q.ID)) == 0 {
			t.Errorf("%s: no retain requests", q.ID)
		}
	}
	for _, ref := range []string{"longmemeval_format_fixture.expected_turn_ref.json", "longmemeval_format_fixture.expected_session_ref.json"} {
		b, err := os.ReadFile(sharedFile(t, "bench", ref))
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			QuestionID string `json:"question_id"`
		}
		if err := json.Unmarshal(b, &rows); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range rows {
			want = append(want, r.QuestionID)
		}
		if !reflect.DeepEqual(evaluated, want) {
			t.Errorf("evaluated %v, %s scores %v", evaluated, ref, want)
		}
	}
}

func TestDetect_LongMemEval(t *testing.T) {
	b, err := os.ReadFile(tinyLongMemEval)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Detect("x.json", b); err != nil || f != FormatLongMemEval {
		t.Errorf("Detect(tiny longmemeval) = %q, %v; want %q", f, err, FormatLongMemEval)
	}
	// A head cut inside the first entry, after its question_id.
	if f, err := Detect("x.json", b[:120]); err != nil || f != FormatLongMemEval {
		t.Errorf("Detect(cut head) = %q, %v; want %q", f, err, FormatLongMemEval)
	}
	lo, err := os.ReadFile(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Detect("x.json", lo); err != nil || f != FormatLoCoMo {
		t.Errorf("Detect(tiny locomo) = %q, %v; want %q", f, err, FormatLoCoMo)
	}
	if f, _ := Detect("x.json", []byte(`[{"qa": [], "question_id_note": 1}]`)); f != FormatLoCoMo {
		t.Errorf("Detect(a LoCoMo-like head) = %q, want %q", f, FormatLoCoMo)
	}
}

func FuzzReadLongMemEval(f *testing.F) {
	b, err := os.ReadFile(tinyLongMemEval)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadLongMemEval(strings.NewReader(string(in)))
		if err != nil {
			return
		}
		for _, q := range d.Questions {
			for _, r := range q.RetainRequests("b") {
				if len(r.Messages) == 0 {
					t.Fatalf("%s: a request without messages", q.ID)
				}
			}
			q.GoldSessions()
		}
	})
}

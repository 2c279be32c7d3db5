package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// LongMemEval is a LongMemEval dataset (longmemeval_s, _m or _oracle, or a
// file in their schema) read as PROTOCOL §3.2 says: one memory space per
// question, its haystack of dated sessions.
type LongMemEval struct {
	Questions []*LongMemEvalQuestion
}

// LongMemEvalQuestion is one entry of the file: a question, its gold
// answer, and the haystack it must be answered from. An engine may see
// only the haystack, Question and Date; never Answer, Type,
// AnswerSessions or a turn's HasAnswer.
type LongMemEvalQuestion struct {
	ID       string // question_id; "_abs" at its end marks an abstention question
	Type     string // question_type, e.g. "multi-session", "temporal-reasoning"
	Question string
	// Answer is the gold answer as text (a number in the file is written
	// as JSON wrote it); for an abstention question it explains why the
	// question cannot be answered.
	Answer string
	// DateText is question_date verbatim; Date is it parsed: the
	// query-time "now".
	DateText string
	Date     time.Time
	// Sessions are the haystack in file order.
	Sessions []LongMemEvalSession
	// AnswerSessions are answer_session_ids.
	AnswerSessions []string
}

// LongMemEvalSession is one haystack session.
type LongMemEvalSession struct {
	ID       string // the haystack_session_ids entry
	DateText string // the haystack_dates entry verbatim
	Time     time.Time
	Turns    []LongMemEvalTurn
}

// LongMemEvalTurn is one message of a session.
type LongMemEvalTurn struct {
	// ID is "<session_id>_<j>", j the 1-based position of the turn in the
	// whole session, assistant turns counted (PROTOCOL §3.2.2).
	ID        string
	Role      string // "user" or "assistant"
	Content   string
	HasAnswer bool
}

// LongMemEvalSource is the Source of every document
// [LongMemEvalQuestion.RetainRequests] makes.
const LongMemEvalSource = "longmemeval"

// longMemEvalTimeLayout is the dataset's "%Y/%m/%d (%a) %H:%M".
const longMemEvalTimeLayout = "2006/01/02 (Mon) 15:04"

// ParseLongMemEvalTime parses a LongMemEval date, "2023/05/20 (Sat)
// 02:21", as a UTC time: the data carries no zone.
func ParseLongMemEvalTime(s string) (time.Time, error) {
	t, err := time.Parse(longMemEvalTimeLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("parse longmemeval time %q: want e.g. \"2023/05/20 (Sat) 02:21\"", s)
	}
	return t, nil
}

// Abstention reports whether q is an abstention question (its id ends in
// "_abs"): the right answer says the history does not tell.
func (q *LongMemEvalQuestion) Abstention() bool {
	return strings.HasSuffix(q.ID, "_abs")
}

// Now is the question's reference time: its date, or, when the file
// gives none, the latest session time.
func (q *LongMemEvalQuestion) Now() time.Time {
	if !q.Date.IsZero() {
		return q.Date
	}
	var now time.Time
	for _, s := range q.Sessions {
		if s.Time.After(now) {
			now = s.Time
		}
	}
	return now
}

// GoldTurns returns the turn-level gold set of PROTOCOL §3.2.3: the ids
// of the user turns with has_answer in the answer sessions, in file
// order.
func (q *LongMemEvalQuestion) GoldTurns() []string {
	answer := make(map[string]bool, len(q.AnswerSessions))
	for _, id := range q.AnswerSessions {
		answer[id] = true
	}
	var out []string
	for _, s := range q.Sessions {
		if !answer[s.ID] {
			continue
		}
		for _, t := range s.Turns {
			if t.Role == "user" && t.HasAnswer {
				out = append(out, t.ID)
			}
		}
	}
	return out
}

// GoldSessions returns the session-level gold set of PROTOCOL §3.2.3: the
// answer sessions with at least one gold turn, in haystack order.
func (q *LongMemEvalQuestion) GoldSessions() []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range q.GoldTurns() {
		sid := id[:strings.LastIndexByte(id, '_')]
		if !seen[sid] {
			seen[sid] = true
			out = append(out, sid)
		}
	}
	return out
}

// Evaluated reports whether q counts in retrieval metrics (PROTOCOL
// §3.2.4): not an abstention question, and with a gold turn. Question
// answering judges every question.
func (q *LongMemEvalQuestion) Evaluated() bool {
	return !q.Abstention() && len(q.GoldTurns()) > 0
}

// RetainRequests returns q's haystack as retain requests for bankID, one
// chat document per session in file order: Source [LongMemEvalSource],
// ItemID "<question_id>/<session_id>", At the session time, and one
// message per non-empty turn with the turn's id, its role as the
// speaker, and the session time.
func (q *LongMemEvalQuestion) RetainRequests(bankID string) []memory.RetainRequest {
	reqs := make([]memory.RetainRequest, 0, len(q.Sessions))
	for _, s := range q.Sessions {
		msgs := make([]memory.Message, 0, len(s.Turns))
		for _, t := range s.Turns {
			if strings.TrimSpace(t.Content) == "" {
				continue // nothing to remember; the ids of the others keep their positions
			}
			msgs = append(msgs, memory.Message{ID: t.ID, Speaker: t.Role, Text: t.Content, Time: s.Time})
		}
		if len(msgs) == 0 {
			continue
		}
		reqs = append(reqs, memory.RetainRequest{
			BankID:   bankID,
			Source:   LongMemEvalSource,
			ItemID:   q.ID + "/" + s.ID,
			At:       s.Time,
			Messages: msgs,
		})
	}
	return reqs
}

// LoadLongMemEval reads the LongMemEval file at path; see
// [ReadLongMemEval].
func LoadLongMemEval(path string) (*LongMemEval, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load longmemeval: %w", err)
	}
	defer f.Close()
	d, err := ReadLongMemEval(f)
	if err != nil {
		return nil, fmt.Errorf("load longmemeval %s: %w", path, err)
	}
	return d, nil
}

// longMemEvalEntry is one entry of a LongMemEval file as written.
type longMemEvalEntry struct {
	QuestionID         string          `json:"question_id"`
	QuestionType       string          `json:"question_type"`
	Question           string          `json:"question"`
	Answer             json.RawMessage `json:"answer"`
	QuestionDate       string          `json:"question_date"`
	HaystackSessionIDs []string        `json:"haystack_session_ids"`
	HaystackDates      []string        `json:"haystack_dates"`
	HaystackSessions   [][]struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		HasAnswer bool   `json:"has_answer"`
	} `json:"haystack_sessions"`
	AnswerSessionIDs []string `json:"answer_session_ids"`
}

// ReadLongMemEval reads a LongMemEval JSON document: a list of questions,
// each with question_id, question_type, question, answer, question_date
// and its haystack (haystack_session_ids, haystack_dates and
// haystack_sessions, zipped in file order). It fails on malformed JSON, a
// missing or repeated question_id, a missing question, haystack lists of
// different lengths, a date that does not parse, and a turn whose role is
// neither user nor assistant.
func ReadLongMemEval(r io.Reader) (*LongMemEval, error) {
	var raw []longMemEvalEntry
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("decode longmemeval: %w", err)
	}
	d := &LongMemEval{Questions: make([]*LongMemEvalQuestion, 0, len(raw))}
	seen := make(map[string]bool, len(raw))
	for i, e := range raw {
		if e.QuestionID == "" {
			return nil, fmt.Errorf("question %d: no question_id", i)
		}
		if seen[e.QuestionID] {
			return nil, fmt.Errorf("question %s: question_id repeated", e.QuestionID)
		}
		seen[e.QuestionID] = true
		q, err := readLongMemEvalQuestion(&e)
		if err != nil {
			return nil, fmt.Errorf("question %s: %w", e.QuestionID, err)
		}
		d.Questions = append(d.Questions, q)
	}
	return d, nil
}

func readLongMemEvalQuestion(e *longMemEvalEntry) (*LongMemEvalQuestion, error) {
	if strings.TrimSpace(e.Question) == "" {
		return nil, fmt.Errorf("no question")
	}
	n := len(e.HaystackSessionIDs)
	if len(e.HaystackSessions) != n || len(e.HaystackDates) != n {
		return nil, fmt.Errorf("haystack_session_ids, haystack_dates and haystack_sessions have %d, %d and %d entries; want as many of each",
			n, len(e.HaystackDates), len(e.HaystackSessions))
	}
	q := &LongMemEvalQuestion{
		ID:             e.QuestionID,
		Type:           e.QuestionType,
		Question:       e.Question,
		Answer:         jsonString(e.Answer),
		DateText:       e.QuestionDate,
		AnswerSessions: e.AnswerSessionIDs,
	}
	if bytes.Equal(bytes.TrimSpace(e.Answer), []byte("null")) {
		q.Answer = ""
	}
	if e.QuestionDate != "" {
		t, err := ParseLongMemEvalTime(e.QuestionDate)
		if err != nil {
			return nil, fmt.Errorf("question_date: %w", err)
		}
		q.Date = t
	}
	for k, sid := range e.HaystackSessionIDs {
		if sid == "" {
			return nil, fmt.Errorf("haystack session %d: empty id", k)
		}
		at, err := ParseLongMemEvalTime(e.HaystackDates[k])
		if err != nil {
			return nil, fmt.Errorf("haystack session %s: %w", sid, err)
		}
		s := LongMemEvalSession{ID: sid, DateText: e.HaystackDates[k], Time: at}
		for j, t := range e.HaystackSessions[k] {
			if t.Role != "user" && t.Role != "assistant" {
				return nil, fmt.Errorf("haystack session %s turn %d: role %q, want user or assistant", sid, j+1, t.Role)
			}
			s.Turns = append(s.Turns, LongMemEvalTurn{
				ID:        sid + "_" + strconv.Itoa(j+1),
				Role:      t.Role,
				Content:   t.Content,
				HasAnswer: t.HasAnswer,
			})
		}
		q.Sessions = append(q.Sessions, s)
	}
	return q, nil
}

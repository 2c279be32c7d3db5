package memory

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// StandingQuestion is a question a bank pins so that its answer is kept
// ready (Hindsight's mental models, kept fresh): the standing pass of
// consolidation answers it again when its evidence changes, and reflect
// and recall hand back the fresh answer without calling a model.
type StandingQuestion struct {
	ID       string
	BankID   string
	Question string
	// CreatedAt is when the question was pinned.
	CreatedAt time.Time
	// Answer is the latest answer; "" until the standing pass first
	// answers it.
	Answer string
	// MemoryIDs are the memories (facts, observations) the answer rests
	// on: its evidence, in the order the answer met them.
	MemoryIDs []string
	// AnsweredAt is when Answer was made; zero until then.
	AnsweredAt time.Time
}

// StandingAnswers keeps a bank's pinned questions and their answers.
// Both built-in stores and the reference store have it; the façade finds
// it by type assertion.
type StandingAnswers interface {
	// PinQuestion stores a new pinned question (ID, Question and
	// CreatedAt set, no answer). A question that fails
	// [ValidateStandingQuestion] is EINVALID; an id the bank holds
	// already ECONFLICT; an unknown bank ENOTFOUND.
	PinQuestion(ctx context.Context, bankID string, q *StandingQuestion) error
	// StandingQuestions lists a bank's pinned questions with their
	// answers, oldest pinned first (by CreatedAt, then id). An unknown
	// bank is ENOTFOUND.
	StandingQuestions(ctx context.Context, bankID string) ([]*StandingQuestion, error)
	// StandingQuestion returns the pinned question id of a bank with its
	// answer; an id the bank does not hold, or an unknown bank, is
	// ENOTFOUND.
	StandingQuestion(ctx context.Context, bankID, id string) (*StandingQuestion, error)
	// SetStandingAnswer records the answer to the pinned question id,
	// the memories it rests on and when it was made, replacing the
	// previous answer; the question and its pin time stay. An answer
	// that fails [ValidateStandingAnswer] is EINVALID; a question the
	// bank does not hold (never pinned, or unpinned meanwhile)
	// ENOTFOUND, and nothing is stored.
	SetStandingAnswer(ctx context.Context, bankID, id, answer string, memoryIDs []string, at time.Time) error
	// UnpinQuestion removes a pinned question and its answer; an id the
	// bank does not hold is ENOTFOUND.
	UnpinQuestion(ctx context.Context, bankID, id string) error
}

// Limits of standing questions.
const (
	// MaxStandingQuestionBytes bounds a pinned question.
	MaxStandingQuestionBytes = 1000
	// MaxStandingAnswerBytes bounds a standing answer: a model's answer,
	// not a document.
	MaxStandingAnswerBytes = 16 << 10
	// MaxStandingEvidence bounds the memory ids kept with an answer.
	MaxStandingEvidence = 200
	// MaxStandingQuestions is how many questions a bank may pin.
	MaxStandingQuestions = 100
)

// NormalizeQuestion is the form two questions are compared in: letters
// lower-cased, whitespace runs folded to one space, and trailing
// punctuation and spaces dropped. "What does the user prefer for
// breakfast?" and "what does the user  prefer for breakfast" are the same
// standing question.
func NormalizeQuestion(q string) string {
	q = strings.Join(strings.Fields(strings.ToLower(q)), " ")
	return strings.TrimRightFunc(q, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// ValidateStandingQuestion checks a question before a store pins it: an
// id, a question of valid UTF-8 of at most MaxStandingQuestionBytes with
// some letter or digit in it, and a pin time; EINVALID says what is
// wrong.
func ValidateStandingQuestion(q *StandingQuestion) error {
	switch {
	case q == nil || q.ID == "":
		return Errorf(EINVALID, "a standing question without an id")
	case !utf8.ValidString(q.Question):
		return Errorf(EINVALID, "standing question %s is not valid UTF-8", q.ID)
	case NormalizeQuestion(q.Question) == "":
		return Errorf(EINVALID, "standing question %s is empty", q.ID)
	case len(q.Question) > MaxStandingQuestionBytes:
		return Errorf(EINVALID, "standing question %s is %d bytes, more than %d", q.ID, len(q.Question), MaxStandingQuestionBytes)
	case q.CreatedAt.IsZero():
		return Errorf(EINVALID, "standing question %s has no pin time", q.ID)
	}
	return nil
}

// ValidateStandingAnswer checks an answer before a store records it: a
// non-empty answer of valid UTF-8 of at most MaxStandingAnswerBytes, at
// most MaxStandingEvidence non-empty memory ids, and a time; EINVALID
// says what is wrong.
func ValidateStandingAnswer(answer string, memoryIDs []string, at time.Time) error {
	switch {
	case strings.TrimSpace(answer) == "":
		return Errorf(EINVALID, "a standing answer is empty")
	case !utf8.ValidString(answer):
		return Errorf(EINVALID, "a standing answer is not valid UTF-8")
	case len(answer) > MaxStandingAnswerBytes:
		return Errorf(EINVALID, "a standing answer is %d bytes, more than %d", len(answer), MaxStandingAnswerBytes)
	case len(memoryIDs) > MaxStandingEvidence:
		return Errorf(EINVALID, "a standing answer rests on %d memories, at most %d are kept", len(memoryIDs), MaxStandingEvidence)
	case at.IsZero():
		return Errorf(EINVALID, "a standing answer has no time")
	}
	for _, id := range memoryIDs {
		if id == "" || !utf8.ValidString(id) {
			return Errorf(EINVALID, "a standing answer's memory ids include an empty or invalid one")
		}
	}
	return nil
}

// ExportStanding is a pinned question with its latest answer, as
// exported (export format 4 on).
type ExportStanding struct {
	ID         string    `json:"id"`
	Question   string    `json:"question"`
	CreatedAt  time.Time `json:"created_at,omitzero"`
	Answer     string    `json:"answer,omitempty"`
	MemoryIDs  []string  `json:"memory_ids,omitempty"`
	AnsweredAt time.Time `json:"answered_at,omitzero"`
}

// ExportedStanding is q as exported.
func ExportedStanding(q *StandingQuestion) *ExportStanding {
	return &ExportStanding{ID: q.ID, Question: q.Question, CreatedAt: q.CreatedAt, Answer: q.Answer, MemoryIDs: nilIfEmpty(q.MemoryIDs), AnsweredAt: q.AnsweredAt}
}

// StandingQuestion is the pinned question x describes, in bank.
func (x *ExportStanding) StandingQuestion(bank string) *StandingQuestion {
	return &StandingQuestion{ID: x.ID, BankID: bank, Question: x.Question, CreatedAt: x.CreatedAt, Answer: x.Answer, MemoryIDs: nilIfEmpty(x.MemoryIDs), AnsweredAt: x.AnsweredAt}
}

// ValidateExportStanding checks an imported pinned question: the
// question as PinQuestion would, and an answer, when there is one, as
// SetStandingAnswer would.
func ValidateExportStanding(x *ExportStanding) error {
	q := x.StandingQuestion("")
	if err := ValidateStandingQuestion(q); err != nil {
		return err
	}
	if x.Answer == "" {
		if len(x.MemoryIDs) > 0 || !x.AnsweredAt.IsZero() {
			return Errorf(EINVALID, "standing question %s: evidence or an answer time without an answer", x.ID)
		}
		return nil
	}
	return ValidateStandingAnswer(x.Answer, x.MemoryIDs, x.AnsweredAt)
}

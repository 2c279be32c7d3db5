package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// Action is what conflict resolution does with a new fact (Robothor's
// four classes).
type Action string

const (
	ActionNew           Action = "new"           // store it
	ActionDuplicate     Action = "duplicate"     // skip it, reinforce the existing fact
	ActionUpdate        Action = "update"        // store it, supersede the existing fact
	ActionContradiction Action = "contradiction" // store it, supersede the existing fact
)

// Supersedes reports whether the action closes an existing fact.
func (a Action) Supersedes() bool { return a == ActionUpdate || a == ActionContradiction }

// Conflict is one new fact with the existing facts that resemble it.
type Conflict struct {
	Fact       *memory.Fact
	Candidates []*memory.Fact
}

// Decision is the judgement on one Conflict: the action, and the
// candidate it concerns (empty for ActionNew).
type Decision struct {
	Action   Action
	Existing string
	Reason   string
}

// Judge classifies new facts against similar existing ones with an LLM:
// new, duplicate, update or contradiction, all conflicts of a document in
// one call. It is safe for concurrent use.
type Judge struct {
	Model memory.LLM
}

// NewJudge returns a Judge over model.
func NewJudge(model memory.LLM) *Judge { return &Judge{Model: model} }

// judgeAnswer is the decoded answer (judgeSchema).
type judgeAnswer struct {
	Decisions []struct {
		Fact     int    `json:"fact"`
		Action   string `json:"action"`
		Existing string `json:"existing"`
		Reason   string `json:"reason"`
	} `json:"decisions"`
}

// Classify returns one decision per conflict, in order, from one LLM
// call. A conflict the model does not answer, or answers with an existing
// id that is not one of its candidates, is ActionNew: storing a fact is
// the safe default, since nothing is lost. It fails when the call fails or
// the answer is malformed.
func (j *Judge) Classify(ctx context.Context, cs []Conflict) ([]Decision, error) {
	out := make([]Decision, len(cs))
	for i := range out {
		out[i].Action = ActionNew
	}
	if len(cs) == 0 {
		return out, nil
	}
	var b strings.Builder
	for i, c := range cs {
		fmt.Fprintf(&b, "NEW %d: %s%s\n", i, c.Fact.Text, when(c.Fact))
		for _, x := range c.Candidates {
			fmt.Fprintf(&b, "  EXISTING %s: %s%s\n", x.ID, x.Text, when(x))
		}
		b.WriteByte('\n')
	}
	resp, err := j.Model.Chat(ctx, &memory.ChatRequest{
		Stage:    StageJudge,
		System:   judgeSystem,
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:   &memory.Schema{Name: "conflicts", Description: "one decision per new fact", JSON: json.RawMessage(judgeSchema)},
	})
	if err != nil {
		return nil, fmt.Errorf("resolve conflicts: %w", err)
	}
	var ans judgeAnswer
	if err := json.Unmarshal(resp.JSON, &ans); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "resolve conflicts: malformed answer: %v", err)
	}
	for _, d := range ans.Decisions {
		if d.Fact < 0 || d.Fact >= len(cs) {
			continue
		}
		act := Action(d.Action)
		if act == ActionNew {
			out[d.Fact] = Decision{Action: ActionNew, Reason: d.Reason}
			continue
		}
		for _, x := range cs[d.Fact].Candidates {
			if x.ID == strings.TrimSpace(d.Existing) {
				out[d.Fact] = Decision{Action: act, Existing: x.ID, Reason: d.Reason}
				break
			}
		}
	}
	return out, nil
}

// when renders a fact's event time for the judge: " (2024-05-07)".
func when(f *memory.Fact) string {
	t := f.EventTime()
	if t.IsZero() {
		return ""
	}
	return " (" + t.UTC().Format("2006-01-02") + ")"
}

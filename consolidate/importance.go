package consolidate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The numbers of importance scoring (seed 002's lifecycle: importance_score
// "LLM-judged (0.0-1.0)", scored by run_lifecycle_maintenance before the
// decay update; DESIGN §6, "importance scoring (LLM when available)").
const (
	// DefaultImportanceBatchSize is how many facts one call scores: 20.
	// Seed 002 gives no batch size; one call per fact would cost a call
	// per fact retained, and one call per batch lets the model rank the
	// facts against each other on one scale.
	DefaultImportanceBatchSize = 20
	// DefaultImportanceMaxFacts bounds the facts one run scores, so a
	// run's calls are bounded (200 facts: 10 calls); the rest wait for
	// the next run. Seed 002 gives none ("facts_scored": 12 in its
	// example run).
	DefaultImportanceMaxFacts = 200
)

// ImportanceDefaults holds the numbers of importance scoring, each a
// named default. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type ImportanceDefaults struct {
	// BatchSize is DefaultImportanceBatchSize.
	BatchSize int `json:"importance_batch_size"`
	// MaxFacts is DefaultImportanceMaxFacts.
	MaxFacts int `json:"importance_max_facts"`
}

// defaultImportanceDefaults returns the seeds' numbers for importance
// scoring.
func defaultImportanceDefaults() ImportanceDefaults {
	return ImportanceDefaults{BatchSize: DefaultImportanceBatchSize, MaxFacts: DefaultImportanceMaxFacts}
}

// Validate reports unusable numbers as EINVALID.
func (d ImportanceDefaults) Validate() error {
	if d.BatchSize < 1 || d.BatchSize > memory.MaxPageSize || d.MaxFacts < 0 {
		return memory.Errorf(memory.EINVALID, "importance: batch size %d (want 1 to %d), max facts %d (want 0 or more)",
			d.BatchSize, memory.MaxPageSize, d.MaxFacts)
	}
	return nil
}

// ImportanceStore is what importance scoring reads and writes.
type ImportanceStore interface {
	UnscoredFacts(ctx context.Context, bankID string, limit int) ([]*memory.Fact, error)
	SetImportance(ctx context.Context, bankID string, scores map[string]float64, at time.Time) error
}

// ImportanceResult counts what one run of [ScoreImportance] did.
type ImportanceResult struct {
	// Scored is how many facts got an importance.
	Scored int
	// Failed is how many facts a failed call, a malformed answer or an
	// answer that left them out did not score: they stay unscored and
	// the next run tries them again.
	Failed int
}

// Counts is r as a run record's counts (merged into the lifecycle's).
func (r *ImportanceResult) Counts() map[string]int {
	return map[string]int{"importance_scored": r.Scored, "importance_failed": r.Failed}
}

// StageImportance names importance scoring's LLM calls in usage counts.
const StageImportance = "importance"

// ScoreImportance gives the active facts that no model has scored an
// importance from 0 to 1 (seed 002's importance_score), oldest first,
// at most d.MaxFacts per run, d.BatchSize facts per llm call. Each
// batch's scores are written at once and mark their facts scored, so a
// fact is scored once; the lifecycle pass's decay score then reads the
// new importance (its floor, importance·0.4). A failed call or a
// malformed answer scores nothing of its batch (counted in Failed) and
// the run goes on; the next run tries the batch again. Scores outside 0..1 are malformed; a
// fact the answer leaves out stays unscored. Store errors stop the run
// and are returned with the counts so far.
func ScoreImportance(ctx context.Context, st ImportanceStore, llm memory.LLM, bank string, now time.Time, d ImportanceDefaults) (*ImportanceResult, error) {
	if llm == nil {
		return nil, &Skipped{Reason: NoLLM}
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	res := &ImportanceResult{}
	if d.MaxFacts == 0 {
		return res, nil
	}
	facts, err := st.UnscoredFacts(ctx, bank, min(d.MaxFacts, memory.MaxPageSize))
	if err != nil {
		return res, fmt.Errorf("importance: unscored facts: %w", err)
	}
	for start := 0; start < len(facts); start += d.BatchSize {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		batch := facts[start:min(start+d.BatchSize, len(facts))]
		scores, err := askImportance(ctx, llm, batch)
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			res.Failed += len(batch)
			continue
		}
		res.Failed += len(batch) - len(scores)
		if len(scores) == 0 {
			continue
		}
		if err := st.SetImportance(ctx, bank, scores, now); err != nil {
			return res, fmt.Errorf("importance: %w", err)
		}
		res.Scored += len(scores)
	}
	return res, nil
}

// askImportance makes one call for batch and returns the scores of the
// facts of batch the answer names.
func askImportance(ctx context.Context, llm memory.LLM, batch []*memory.Fact) (map[string]float64, error) {
	var b strings.Builder
	b.WriteString("FACTS:\n")
	for _, f := range batch {
		fmt.Fprintf(&b, "- id %s", f.ID)
		if t := f.EventTime(); !t.IsZero() {
			fmt.Fprintf(&b, " | %s", t.UTC().Format("2006-01-02"))
		}
		if f.Category != "" {
			fmt.Fprintf(&b, " | %s", f.Category)
		}
		fmt.Fprintf(&b, " | %s\n", f.Body())
	}
	resp, err := llm.Chat(ctx, &memory.ChatRequest{
		Stage:    StageImportance,
		System:   importanceSystem,
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: b.String()}},
		Schema:   &memory.Schema{Name: "importance", Description: "one importance score per fact", JSON: json.RawMessage(importanceSchema)},
	})
	if err != nil {
		return nil, fmt.Errorf("importance: %w", err)
	}
	var ans struct {
		Scores *[]struct {
			Fact       string  `json:"fact"`
			Importance float64 `json:"importance"`
		} `json:"scores"`
	}
	if err := json.Unmarshal(resp.JSON, &ans); err != nil || ans.Scores == nil {
		return nil, memory.Errorf(memory.EINVALID, "importance: malformed answer")
	}
	in := make(map[string]bool, len(batch))
	for _, f := range batch {
		in[f.ID] = true
	}
	out := map[string]float64{}
	for _, s := range *ans.Scores {
		id := strings.TrimSpace(s.Fact)
		if math.IsNaN(s.Importance) || s.Importance < 0 || s.Importance > 1 {
			return nil, memory.Errorf(memory.EINVALID, "importance: malformed answer: score %v of %s", s.Importance, id)
		}
		if in[id] {
			out[id] = s.Importance
		}
	}
	return out, nil
}

// importanceSystem is importance scoring's instructions.
const importanceSystem = `You score facts for a long-term memory: how much each one matters to remember months from now, from 0.0 to 1.0.

- 0.8-1.0: identity, health, relationships, life events, commitments and decisions, lasting preferences
- 0.4-0.7: plans, projects, habits, useful details about people, places and work
- 0.0-0.3: small talk, greetings, passing states, trivia

Score every fact, by its id exactly as given, on one scale across the list.`

// importanceSchema is the JSON Schema of importance scoring's answer.
const importanceSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["scores"],
  "properties": {
    "scores": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["fact", "importance"],
        "properties": {
          "fact": {"type": "string"},
          "importance": {"type": "number", "minimum": 0, "maximum": 1}
        }
      }
    }
  }
}`

package consolidate

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// What the passes that ask an LLM share: a JSON answer asked for, a bad
// answer told apart from a failure, and facts and observations rendered
// for a prompt.

// answerError is a model's answer that cannot be applied: the pass
// counts its item (a fact, a pair) failed and goes on.
type answerError struct{ err error }

func (e *answerError) Error() string { return e.err.Error() }
func (e *answerError) Unwrap() error { return e.err }

// badAnswer wraps an unusable answer as an EINVALID answerError.
func badAnswer(format string, args ...any) error {
	return &answerError{memory.Errorf(memory.EINVALID, format, args...)}
}

// chatAnswer calls llm and returns its JSON answer. A provider's EINVALID
// (a malformed answer it could not repair, a request refused for this
// content) is an answerError; anything else stops the run.
func chatAnswer(ctx context.Context, llm memory.LLM, req *memory.ChatRequest, what string) (json.RawMessage, error) {
	resp, err := llm.Chat(ctx, req)
	if err != nil {
		if memory.ErrorCode(err) == memory.EINVALID && ctx.Err() == nil {
			return nil, &answerError{fmt.Errorf("%s: %w", what, err)}
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(resp.JSON) == 0 {
		return nil, badAnswer("%s: no JSON answer", what)
	}
	return resp.JSON, nil
}

// activeObs reports whether o is active (an empty status reads active).
func activeObs(o *memory.Observation) bool { return o.Status == memory.StatusActive || o.Status == "" }

// validKind reports whether k is one of the observation kinds.
func validKind(k memory.ObservationKind) bool {
	switch k {
	case memory.ObservationPattern, memory.ObservationTrend, memory.ObservationTransition, memory.ObservationCycle, memory.ObservationCorrelation:
		return true
	}
	return false
}

// embedOne embeds one text.
func embedOne(ctx context.Context, emb memory.Embedder, text string) ([]float32, error) {
	vecs, err := emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, memory.Errorf(memory.EINTERNAL, "embed: %d vectors for one text", len(vecs))
	}
	return vecs[0], nil
}

// factReader reads facts by id.
type factReader interface {
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
}

// loadSources loads the last n sources of each observation, by id.
func loadSources(ctx context.Context, st factReader, bank string, obs []*memory.Observation, n int) (map[string]*memory.Fact, error) {
	var ids []string
	for _, x := range obs {
		ids = append(ids, latest(x.SourceFactIDs, n)...)
	}
	out := map[string]*memory.Fact{}
	if len(ids) == 0 {
		return out, nil
	}
	facts, err := st.Facts(ctx, bank, ids)
	if err != nil {
		return nil, fmt.Errorf("observation sources: %w", err)
	}
	for _, f := range facts {
		out[f.ID] = f
	}
	return out, nil
}

// latest returns the last n of ids.
func latest(ids []string, n int) []string {
	if len(ids) > n {
		return ids[len(ids)-n:]
	}
	return ids
}

// inTimeOrder returns the facts of ids found in byID, by event time, then
// ingestion order.
func inTimeOrder(ids []string, byID map[string]*memory.Fact) []*memory.Fact {
	var out []*memory.Fact
	for _, id := range ids {
		if f := byID[id]; f != nil && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b *memory.Fact) int {
		return cmp.Or(a.EventTime().Compare(b.EventTime()), cmp.Compare(a.Seq, b.Seq))
	})
	return out
}

// promptDate formats a time as a date for prompts; "date unknown" when zero.
func promptDate(t time.Time) string {
	if t.IsZero() {
		return "date unknown"
	}
	return t.UTC().Format("2006-01-02")
}

// factLine renders a fact for a prompt: "[2024-05-01] Alex: text",
// marked when it is no longer current.
func factLine(f *memory.Fact) string {
	s := "[" + promptDate(f.EventTime()) + "] " + foldSpace(f.Body())
	if f.Status != memory.StatusActive && f.Status != "" {
		s += " (" + string(f.Status) + ")"
	}
	return s
}

// foldSpace folds whitespace runs, newlines included, to single spaces.
func foldSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// observationBlock renders one observation for a prompt: its kind,
// evidence, latest history and latest sources in time order.
func observationBlock(b *strings.Builder, label string, x *memory.Observation, sources map[string]*memory.Fact, nSources, nHistory int) {
	fmt.Fprintf(b, "%s (%s; %d supporting fact", label, x.Kind, x.EvidenceCount)
	if x.EvidenceCount != 1 {
		b.WriteByte('s')
	}
	fmt.Fprintf(b, "; since %s) %s\n", promptDate(x.CreatedAt), foldSpace(x.Text))
	if h := latestChanges(x.History, nHistory); len(h) > 0 {
		b.WriteString("   history, oldest first:\n")
		for _, c := range h {
			fmt.Fprintf(b, "   - until %s it said: %q", promptDate(c.ChangedAt), foldSpace(c.Previous))
			if r := foldSpace(c.Reason); r != "" {
				fmt.Fprintf(b, " (changed because: %s)", r)
			}
			b.WriteByte('\n')
		}
	}
	if fs := inTimeOrder(latest(x.SourceFactIDs, nSources), sources); len(fs) > 0 {
		if len(x.SourceFactIDs) > len(fs) {
			fmt.Fprintf(b, "   latest %d source facts, in time order:\n", len(fs))
		} else {
			b.WriteString("   source facts, in time order:\n")
		}
		for _, f := range fs {
			b.WriteString("   - " + factLine(f) + "\n")
		}
	}
}

// latestChanges returns the last n entries of h.
func latestChanges(h []memory.ObservationChange, n int) []memory.ObservationChange {
	if len(h) > n {
		return h[len(h)-n:]
	}
	return h
}

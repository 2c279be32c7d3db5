package recall_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
)

// putObservation stores an observation over the given facts directly, as
// consolidation will.
func (b *bank) putObservation(id, text string, history []memory.ObservationChange, sources ...*memory.Fact) {
	b.t.Helper()
	vecs, err := b.emb.Embed(b.ctx, []string{text})
	if err != nil {
		b.t.Fatal(err)
	}
	o := &memory.Observation{ID: id, Text: text, Kind: memory.ObservationPattern, Embedding: vecs[0], History: history,
		EvidenceCount: len(sources), CreatedAt: now, UpdatedAt: now}
	for _, f := range sources {
		o.SourceFactIDs = append(o.SourceFactIDs, f.ID)
	}
	if err := b.store.PutObservations(b.ctx, "b", []*memory.Observation{o}); err != nil {
		b.t.Fatal(err)
	}
}

// TestPipeline_Recall_Observations is seed 000's two phases: observations
// first, each with its most recent source facts, then the facts not
// already bundled.
func TestPipeline_Recall_Observations(t *testing.T) {
	b := newBank(t)
	q := memory.Query{Text: "Alice cello Lisbon"}
	if rec := b.recall(q); len(rec.Observations) != 0 {
		t.Fatalf("a bank without observations: %d observations recalled", len(rec.Observations))
	}
	cello, lisbon, group := b.fact("I started learning the cello"), b.fact("I moved to Lisbon"), b.fact("I went to the LGBTQ")
	b.putObservation("o1", "Alice keeps starting new chapters: the cello, then a move to Lisbon",
		[]memory.ObservationChange{{Previous: "Alice is learning the cello", ChangedAt: time.Date(2023, 1, 10, 0, 0, 0, 0, time.UTC)}},
		cello, lisbon)
	b.putObservation("o2", "Caroline is building a family through community and adoption", nil, group)

	rec := b.recall(q)
	if len(rec.Observations) != 1 || rec.Observations[0].Observation.ID != "o1" {
		t.Fatalf("observations: %v, want o1 alone", obsIDs(rec))
	}
	bundled := rec.Observations[0].Facts
	if len(bundled) != 2 || bundled[0].ID != lisbon.ID || bundled[1].ID != cello.ID {
		t.Errorf("bundled facts: %v, want Lisbon (2023) then the cello (2022): most recent first", resultTexts(toResults(bundled)))
	}
	for _, r := range rec.Results {
		if r.Fact.ID == cello.ID || r.Fact.ID == lisbon.ID {
			t.Errorf("phase 2 repeats a bundled fact: %q", r.Fact.Text)
		}
	}
	for _, want := range []string{"- (pattern) Alice keeps starting new chapters", "  previously: Alice is learning the cello (changed 2023-01-10)", "  - [2023-01-10] Alice: I moved to Lisbon"} {
		if !strings.Contains(rec.Context, want) {
			t.Errorf("context lacks %q:\n%s", want, rec.Context)
		}
	}
	if i, j := strings.Index(rec.Context, "Alice keeps"), strings.Index(rec.Context, "pottery"); j >= 0 && j < i {
		t.Errorf("a fact precedes the observation in the context:\n%s", rec.Context)
	}

	// The query's filter applies to bundled facts too.
	rec = b.recall(memory.Query{Text: q.Text, Filter: memory.Filter{Tags: []string{"work"}}})
	if len(rec.Observations) != 1 || len(rec.Observations[0].Facts) != 1 || rec.Observations[0].Facts[0].ID != lisbon.ID {
		t.Errorf("with tag work: %v, want o1 with the Lisbon fact only", obsIDs(rec))
	}
}

func obsIDs(rec *memory.Recollection) []string {
	var out []string
	for _, o := range rec.Observations {
		out = append(out, o.Observation.ID)
	}
	return out
}

func toResults(fs []*memory.Fact) []memory.Result {
	var out []memory.Result
	for _, f := range fs {
		out = append(out, memory.Result{Fact: f})
	}
	return out
}

// TestPipeline_Recall_Formats renders the same recollection as text,
// Markdown and JSON, each within its budget, and orders a temporal
// query's context by time.
func TestPipeline_Recall_Formats(t *testing.T) {
	b := newBank(t)
	b.putObservation("o1", "Alice keeps starting new chapters: the cello, then Lisbon", nil, b.fact("I started learning the cello"))
	q := memory.Query{Text: "Alice cello Lisbon Bob"}
	for _, format := range []string{"", memory.FormatText, memory.FormatMarkdown, memory.FormatJSON} {
		q.Format = format
		rec := b.recall(q)
		if rec.Context == "" || rec.Tokens != recall.CountTokens(rec.Context) || rec.Tokens > memory.DefaultTokenBudget {
			t.Fatalf("format %q: %d tokens for %q", format, rec.Tokens, rec.Context)
		}
		switch format {
		case memory.FormatMarkdown:
			for _, want := range []string{"## Relevant memories", "### Observations", "### Facts", "- **Alice keeps starting new chapters", "**2023-01-10** Alice: I moved to Lisbon"} {
				if !strings.Contains(rec.Context, want) {
					t.Errorf("markdown lacks %q:\n%s", want, rec.Context)
				}
			}
		case memory.FormatJSON:
			var doc struct {
				Order        string `json:"order"`
				Observations []struct {
					Text  string `json:"text"`
					Facts []struct{ Date, Speaker, Text string }
				} `json:"observations"`
				Facts []struct{ Date, Speaker, Text string } `json:"facts"`
			}
			if err := json.Unmarshal([]byte(rec.Context), &doc); err != nil {
				t.Fatalf("JSON context does not parse: %v\n%s", err, rec.Context)
			}
			if doc.Order != "relevance" || len(doc.Observations) != 1 || len(doc.Facts) == 0 || doc.Facts[0].Date == "" || doc.Facts[0].Speaker == "" {
				t.Errorf("JSON context: %+v", doc)
			}
			small := q
			small.Budget = 60
			if rec := b.recall(small); rec.Tokens > 60 || (rec.Context != "" && !json.Valid([]byte(rec.Context))) {
				t.Errorf("JSON context at budget 60: %d tokens, valid %v", rec.Tokens, json.Valid([]byte(rec.Context)))
			}
		default:
			if !strings.HasPrefix(rec.Context, "Relevant memories (most relevant first):\n- (pattern) Alice keeps") {
				t.Errorf("text context:\n%s", rec.Context)
			}
		}
	}
	if _, err := b.p.Recall(b.ctx, memory.Query{BankID: "b", Text: "x", Format: "html"}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("format html: %v, want EINVALID", err)
	}

	// A temporal query: the kept facts come in time order.
	rec := b.recall(memory.Query{Text: "What happened in 2023?", Limit: 5})
	if !strings.HasPrefix(rec.Context, "Relevant memories (in time order):") {
		t.Fatalf("temporal query context:\n%s", rec.Context)
	}
	var dates []string
	for _, line := range strings.Split(rec.Context, "\n") {
		if strings.HasPrefix(line, "- [") {
			dates = append(dates, line[3:13])
		}
	}
	for i := 1; i < len(dates); i++ {
		if dates[i] < dates[i-1] {
			t.Errorf("temporal context not in time order: %v", dates)
		}
	}
	if len(dates) < 2 {
		t.Errorf("temporal context has %d dated lines, want several", len(dates))
	}
}

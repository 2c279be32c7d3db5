package bench

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestGenerateSynthetic_Deterministic(t *testing.T) {
	a, b := GenerateSynthetic(500, 7), GenerateSynthetic(500, 7)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed: requests differ")
	}
	if c := GenerateSynthetic(500, 8); reflect.DeepEqual(a, c) {
		t.Error("different seeds: requests equal")
	}
}

func TestGenerateSynthetic_Shape(t *testing.T) {
	tests := []struct {
		n, docs, last int
	}{
		{0, 0, 0},
		{-3, 0, 0},
		{1, 1, 1},
		{20, 1, 20},
		{21, 2, 1},
		{1000, 50, 20},
		{1010, 51, 10},
	}
	for _, tt := range tests {
		reqs := GenerateSynthetic(tt.n, 1)
		if len(reqs) != tt.docs {
			t.Errorf("n=%d: got %d documents, want %d", tt.n, len(reqs), tt.docs)
			continue
		}
		if tt.docs > 0 && len(reqs[len(reqs)-1].Messages) != tt.last {
			t.Errorf("n=%d: last document has %d messages, want %d", tt.n, len(reqs[len(reqs)-1].Messages), tt.last)
		}
	}

	reqs := GenerateSynthetic(5000, 42)
	facts, prev := 0, reqs[0].At
	ids := make(map[string]bool)
	speakers := make(map[string]bool)
	for _, req := range reqs {
		if req.BankID != "" || req.Source != SyntheticSource || req.Text != "" || !strings.HasPrefix(req.ItemID, "synthetic/42/") {
			t.Fatalf("request: got %+v", req)
		}
		if ids[req.ItemID] {
			t.Fatalf("item %s repeated", req.ItemID)
		}
		ids[req.ItemID] = true
		if !req.Messages[0].Time.Equal(req.At) {
			t.Errorf("%s: first message at %v, document at %v", req.ItemID, req.Messages[0].Time, req.At)
		}
		docSpeakers := make(map[string]bool)
		for _, m := range req.Messages {
			facts++
			if facts > 1 && !m.Time.After(prev) {
				t.Fatalf("%s: time %v not after %v", m.ID, m.Time, prev)
			}
			prev = m.Time
			if ids[m.ID] || !strings.HasPrefix(m.ID, req.ItemID+"/m") || m.Speaker == "" || m.Text == "" {
				t.Fatalf("message: got %+v", m)
			}
			ids[m.ID] = true
			docSpeakers[m.Speaker] = true
			speakers[m.Speaker] = true
		}
		if len(docSpeakers) > 2 {
			t.Errorf("%s: %d speakers, want at most 2", req.ItemID, len(docSpeakers))
		}
	}
	if facts != 5000 {
		t.Errorf("got %d facts, want 5000", facts)
	}
	if len(speakers) < 50 {
		t.Errorf("got %d speakers, want a varied cast", len(speakers))
	}
	// A realistic vocabulary for the full-text index.
	terms := make(map[string]bool)
	for _, req := range reqs {
		for _, m := range req.Messages {
			for _, tok := range tokStop(m.Text) {
				terms[tok] = true
			}
		}
	}
	if len(terms) < 600 {
		t.Errorf("got %d distinct terms, want at least 600", len(terms))
	}
	t.Logf("5000 facts: %d documents, %d speakers, %d terms, %v to %v", len(reqs), len(speakers), len(terms), reqs[0].At, prev)
	t.Logf("sample: %q", reqs[0].Messages[0].Text)
}

func TestSyntheticQueries(t *testing.T) {
	a, b := SyntheticQueries(50, 3), SyntheticQueries(50, 3)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed: queries differ")
	}
	if len(a) != 50 {
		t.Errorf("got %d queries, want 50", len(a))
	}
	if got := SyntheticQueries(0, 3); got != nil {
		t.Errorf("n=0: got %q, want nil", got)
	}
	// The queries speak of the bank's people: most name someone who is in
	// the generated bank of the same seed.
	text := new(strings.Builder)
	for _, req := range GenerateSynthetic(2000, 3) {
		for _, m := range req.Messages {
			text.WriteString(m.Text + "\n")
		}
	}
	bank := text.String()
	found := 0
	for _, q := range SyntheticQueries(200, 3) {
		for _, tok := range strings.FieldsFunc(q, func(r rune) bool { return r == ' ' || r == '?' || r == '\'' }) {
			if tok != "" && tok[0] >= 'A' && tok[0] <= 'Z' && !slices.Contains([]string{"What", "Who", "Where", "When", "Which"}, tok) && strings.Contains(bank, tok) {
				found++
				break
			}
		}
	}
	if found < 180 {
		t.Errorf("%d of 200 queries name something in the bank, want at least 180", found)
	}
}

func TestRunSynthetic(t *testing.T) {
	eng := newFakeEngine()
	var calls int
	r, err := RunSynthetic(context.Background(), eng, SyntheticOptions{
		Facts: 1000, Seed: 5, Queries: 30,
		Progress: func(done, total int) { calls++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Collect(maps.Keys(eng.banks)), []string{DefaultSyntheticBank}; !reflect.DeepEqual(got, want) {
		t.Errorf("banks: got %q, want %q", got, want)
	}
	if r.Facts != 1000 || r.Documents != 50 || r.Recalls != 30 || calls != 80 {
		t.Errorf("got %d facts, %d documents, %d recalls, %d progress calls", r.Facts, r.Documents, r.Recalls, calls)
	}
	reqs := GenerateSynthetic(1000, 5)
	for i, q := range eng.queries {
		want := memory.Query{BankID: DefaultSyntheticBank, Text: SyntheticQueries(30, 5)[i], Limit: SyntheticLimit, Now: reqs[len(reqs)-1].At}
		if !reflect.DeepEqual(q, want) {
			t.Fatalf("query %d: got %+v, want %+v", i, q, want)
		}
	}
	if r.IngestFactsPerSec != perSecond(1000, r.IngestTime) || r.RecallMS.P50 > r.RecallMS.P99 || r.RSSMB <= 0 || r.PeakRSSMB < r.RSSMB {
		t.Errorf("measures: got %+v", r)
	}

	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if keys := sortedKeys(got); !reflect.DeepEqual(keys, []string{"bulk", "facts", "ingest_facts_per_s", "memory", "peak_rss_mb", "recall_ms", "rss_mb"}) {
		t.Errorf("JSON keys: got %q", keys)
	}

	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "1000 facts from 50 documents") || strings.Count(text.String(), "\n") != 3 {
		t.Errorf("text: got %q", text.String())
	}
	t.Logf("\n%s", text.String())
}

func TestRunSynthetic_Err(t *testing.T) {
	eng := newFakeEngine()
	if _, err := eng.CreateBank(context.Background(), "taken"); err != nil {
		t.Fatal(err)
	}
	_, err := RunSynthetic(context.Background(), eng, SyntheticOptions{Bank: "taken", Facts: 10})
	if got := memory.ErrorCode(err); got != memory.ECONFLICT {
		t.Errorf("bank exists: got %v, want %s", err, memory.ECONFLICT)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunSynthetic(ctx, newFakeEngine(), SyntheticOptions{Facts: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: got %v, want context.Canceled", err)
	}
}

func TestParseProcStatus(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		rss, peak int64
		err       bool
	}{
		{"OK", "Name:\tbench.test\nVmPeak:\t 900 kB\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t8\n", 10240, 20480, false},
		{"NoHWM", "VmRSS:\t 512 kB\n", 512, 512, false},
		{"NoRSS", "Name:\tx\nVmHWM:\t 512 kB\n", 0, 0, true},
		{"BadUnit", "VmRSS:\t 512 MB\n", 0, 0, true},
		{"BadNumber", "VmRSS:\t lots kB\n", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rss, peak, err := parseProcStatus(strings.NewReader(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("err: got %v, want error %v", err, tt.err)
			}
			if rss != tt.rss || peak != tt.peak {
				t.Errorf("got %d, %d; want %d, %d", rss, peak, tt.rss, tt.peak)
			}
		})
	}
}

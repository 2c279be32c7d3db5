package recall_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
)

func TestCountTokens(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("x", 400), 100},
		{"héllo", 2},    // 6 bytes
		{"日本語のテキスト", 6}, // 24 bytes
	} {
		if got := recall.CountTokens(tt.s); got != tt.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

// results makes n results whose facts have distinct texts of about size
// bytes each, in order.
func results(n, size int) []memory.Result {
	out := make([]memory.Result, n)
	for i := range out {
		text := fmt.Sprintf("fact %03d %s", i, strings.Repeat("x", max(size-9, 0)))
		out[i] = memory.Result{Fact: &memory.Fact{ID: fmt.Sprint(i), Text: text, Speaker: "S", OccurredStart: time.Date(2023, 1, 1+i%28, 0, 0, 0, 0, time.UTC)}, Score: float64(n - i)}
	}
	return out
}

func TestPack(t *testing.T) {
	rs := results(20, 37)
	full, fullTokens := recall.Pack(rs, 1<<20)
	lines := strings.Split(strings.TrimSuffix(full, "\n"), "\n")
	if len(lines) != 1+len(rs) {
		t.Fatalf("unbounded Pack has %d lines, want a header and %d facts", len(lines), len(rs))
	}
	header := lines[0]
	if header == "" || strings.HasPrefix(header, "- ") {
		t.Errorf("first line %q is not a header", header)
	}
	for i, r := range rs {
		if want := memory.FormatFact(r.Fact); lines[1+i] != want {
			t.Errorf("line %d = %q, want %q", 1+i, lines[1+i], want)
		}
	}
	if fullTokens != recall.CountTokens(full) {
		t.Errorf("tokens = %d, CountTokens(context) = %d", fullTokens, recall.CountTokens(full))
	}

	prevLines := 0
	for budget := 0; budget <= fullTokens+5; budget++ {
		ctx, n := recall.Pack(rs, budget)
		if n != recall.CountTokens(ctx) {
			t.Fatalf("budget %d: tokens = %d, CountTokens(context) = %d", budget, n, recall.CountTokens(ctx))
		}
		if n > budget {
			t.Fatalf("budget %d: context of %d tokens", budget, n)
		}
		if ctx == "" {
			if prevLines > 0 {
				t.Fatalf("budget %d: empty context, a smaller budget had %d lines", budget, prevLines)
			}
			continue
		}
		// The context is the header and a prefix of the full one's lines,
		// best first, never more lines for less budget.
		if !strings.HasPrefix(full, ctx) || !strings.HasSuffix(ctx, "\n") {
			t.Fatalf("budget %d: context is not a whole-line prefix of the full context:\n%s", budget, ctx)
		}
		got := strings.Count(ctx, "\n") - 1
		if got < prevLines {
			t.Fatalf("budget %d: %d lines, fewer than %d at a smaller budget", budget, got, prevLines)
		}
		// Greedy: the next line would not have fit, counting each line
		// on its own (a sum of rounded-up counts, never below the whole's).
		if got < len(rs) {
			used := 0
			for _, l := range strings.SplitAfter(ctx, "\n") {
				used += recall.CountTokens(l)
			}
			next := recall.CountTokens(memory.FormatFact(rs[got].Fact) + "\n")
			if used+next <= budget {
				t.Errorf("budget %d: stopped at %d lines (%d tokens used), but the next line of %d tokens fits", budget, got, used, next)
			}
		}
		prevLines = got
	}
	if prevLines != len(rs) {
		t.Errorf("at the full budget %d lines, want %d", prevLines, len(rs))
	}
}

func TestPack_Empty(t *testing.T) {
	rs := results(3, 20)
	for _, tt := range []struct {
		name   string
		rs     []memory.Result
		budget int
	}{
		{"NoResults", nil, 1000},
		{"ZeroBudget", rs, 0},
		{"NegativeBudget", rs, -5},
		{"HeaderOnly", rs, recall.CountTokens("Relevant memories (most relevant first):\n")},
		{"OneToken", rs, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, n := recall.Pack(tt.rs, tt.budget)
			if ctx != "" || n != 0 {
				t.Errorf("Pack = %q, %d; want \"\", 0", ctx, n)
			}
		})
	}
}

// A long first fact that does not fit leaves the context empty rather
// than skipping to a shorter one: the order is the ranking.
func TestPack_InOrder(t *testing.T) {
	rs := []memory.Result{
		{Fact: &memory.Fact{Text: strings.Repeat("long ", 100)}},
		{Fact: &memory.Fact{Text: "short"}},
	}
	ctx, _ := recall.Pack(rs, 60)
	if strings.Contains(ctx, "short") {
		t.Errorf("Pack skipped a fact that did not fit for a later one:\n%s", ctx)
	}
}

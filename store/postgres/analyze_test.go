package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestStore_AnalyzeAfterImport: facts written past autovacuum's threshold
// (50 + 10 %) get the planner fresh statistics at once, in the
// background, without waiting for autovacuum; writes under it do not.
func TestStore_AnalyzeAfterImport(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, schemaURL(t))
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b", Name: "b"}); err != nil {
		t.Fatal(err)
	}
	write := func(doc string, n int) {
		texts := make([]string, n)
		for i := range texts {
			texts[i] = fmt.Sprintf("fact %d of %s about pottery and hiking", i, doc)
		}
		if _, err := s.Write(ctx, storetest.NewTestBatch("b", doc, texts...)); err != nil {
			t.Fatal(err)
		}
		if err := s.WaitAnalyzed(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write("d1", 10)
	if n := s.AnalyzeRuns(); n != 0 {
		t.Fatalf("ANALYZE ran %d times after 10 facts, want 0", n)
	}
	write("d2", 45) // 55 facts: past 50
	if n := s.AnalyzeRuns(); n != 1 {
		t.Fatalf("ANALYZE ran %d times after 55 facts, want 1", n)
	}
	var tuples float64
	if err := s.Pool().QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'facts'::regclass`).Scan(&tuples); err != nil {
		t.Fatal(err)
	}
	if tuples < 55 {
		t.Errorf("facts reltuples = %g after ANALYZE, want ≥ 55", tuples)
	}
	write("d3", 20) // 20 < 50 + 5.5
	if n := s.AnalyzeRuns(); n != 1 {
		t.Errorf("ANALYZE ran %d times after 20 more facts, want still 1", n)
	}
}

// TestStore_CustomPlans: the store's connections plan each query for its
// arguments (plan_cache_mode force_custom_plan) unless the URL says
// otherwise.
func TestStore_CustomPlans(t *testing.T) {
	ctx := context.Background()
	u := schemaURL(t)
	var mode string
	if err := openStore(t, u).Pool().QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "force_custom_plan" {
		t.Errorf("plan_cache_mode = %q, want force_custom_plan", mode)
	}
	if err := openStore(t, u+"&plan_cache_mode=auto").Pool().QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "auto" {
		t.Errorf("with plan_cache_mode=auto in the URL: %q", mode)
	}
}

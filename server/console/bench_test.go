package console_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/console"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// benchBank is the bank BenchmarkConsole reads.
const benchBank = "synthetic"

// openBenchEngine opens the engine BenchmarkConsole reads: the database at
// MNEMO_CONSOLE_BENCH_DB (kept between runs: the bank is generated only
// when it is missing) or a temporary one, holding bank "synthetic" of
// MNEMO_CONSOLE_BENCH_FACTS generated facts (default 100,000; bench's
// synthetic generator, seed 1) after one lifecycle pass (tiers, salience,
// the tier log).
func openBenchEngine(b *testing.B) *mnemo.Engine {
	b.Helper()
	ctx := context.Background()
	db := os.Getenv("MNEMO_CONSOLE_BENCH_DB")
	if db == "" {
		db = filepath.Join(b.TempDir(), "bench.db")
	}
	n := 100_000
	if v := os.Getenv("MNEMO_CONSOLE_BENCH_FACTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("MNEMO_CONSOLE_BENCH_FACTS=%q: want a positive number", v)
		}
	}
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: db, JobPoll: -1, SessionIdle: -1, AccessFlush: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	if _, err := eng.Bank(ctx, benchBank); memory.ErrorCode(err) == memory.ENOTFOUND {
		reqs := bench.GenerateSynthetic(n, 1)
		for i := range reqs {
			reqs[i].BankID = benchBank
		}
		start := time.Now()
		if _, err := eng.Import(ctx, reqs, mnemo.ImportOptions{CreateBanks: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Consolidate(ctx, benchBank, "lifecycle"); err != nil {
			b.Fatal(err)
		}
		b.Logf("generated %d facts into %s in %s", n, db, time.Since(start).Round(time.Second))
	} else if err != nil {
		b.Fatal(err)
	}
	return eng
}

// BenchmarkConsole times each console request on a large bank, server
// side (the handler, no network), and reports its p95 besides the mean:
//
//	MNEMO_CONSOLE_BENCH_DB=/tmp/console-bench.db go test -run '^$' -bench Console -benchtime 50x ./server/console
func BenchmarkConsole(b *testing.B) {
	ctx := context.Background()
	eng := openBenchEngine(b)
	st, err := eng.Stats(ctx, benchBank)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("bank %s: %d facts, %d entities", benchBank, st.Facts, st.Entities)
	// The busiest entity: the heaviest entity and graph pages.
	var busy *memory.Entity
	q := memory.EntityQuery{Limit: memory.MaxPageSize}
	for {
		page, err := eng.Entities(ctx, benchBank, q)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range page.Entities {
			if busy == nil || e.MentionCount > busy.MentionCount {
				busy = e
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	tl, err := eng.Timeline(ctx, benchBank, mnemo.TimelineQuery{})
	if err != nil {
		b.Fatal(err)
	}
	early := tl.Oldest.Add(tl.Newest.Sub(tl.Oldest) / 10).Unix()
	api := httpapi.New(eng, httpapi.Options{InsecureLocal: true, Logger: slog.New(slog.DiscardHandler)})
	c := console.New(eng, api, console.Options{Logger: slog.New(slog.DiscardHandler)})
	for _, p := range []struct{ name, path string }{
		{"banks", "/ui/x/"},
		{"bank", "/ui/x/banks/synthetic"},
		{"counts", "/ui/x/banks/synthetic/counts"},
		{"zone", "/ui/x/banks/synthetic/zone"},
		{"entities", "/ui/x/banks/synthetic/entities"},
		{"entity", "/ui/x/banks/synthetic/entities/" + busy.ID},
		{"timeline", "/ui/x/banks/synthetic/timeline"},
		{"timeline-asof", "/ui/x/banks/synthetic/timeline?asof=" + strconv.FormatInt(early, 10)},
		{"timeline-filtered", "/ui/x/banks/synthetic/timeline?kind=experience&category=event"},
		{"graph", "/ui/x/banks/synthetic/graph/" + busy.ID},
		{"observations", "/ui/x/banks/synthetic/observations"},
		{"recall", "/ui/x/banks/synthetic/recall?q=" + "who+moved+to+Lisbon"},
		{"runs", "/ui/x/banks/synthetic/runs"},
		{"curate", "/ui/x/banks/synthetic/curate"},
	} {
		get := func(b *testing.B) time.Duration {
			req := httptest.NewRequest(http.MethodGet, p.path, nil)
			req.RemoteAddr = "127.0.0.1:1234"
			req.Header.Set("HX-Request", "true")
			rec := httptest.NewRecorder()
			start := time.Now()
			c.ServeHTTP(rec, req)
			took := time.Since(start)
			if rec.Code != http.StatusOK {
				b.Fatalf("GET %s: %d\n%s", p.path, rec.Code, rec.Body)
			}
			return took
		}
		b.Run(p.name, func(b *testing.B) {
			// One request first, untimed: a server answers many, and the
			// first read of a bank loads the store's search mirror.
			get(b)
			var took []time.Duration
			for b.Loop() {
				took = append(took, get(b))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[(len(took)*95+99)/100-1].Microseconds())/1000, "p95-ms")
		})
	}
}

package postgres

import (
	"context"
	"sync"
	"time"
)

// PostgreSQL plans every query from table statistics, which autovacuum
// refreshes at most once a minute (autovacuum_naptime) after a tenth of
// a table has changed. Until then a bank just imported is planned as if
// its tables were empty: on LoCoMo, the recalls that followed an import
// took 140–280 ms instead of 4 ms (nested loops over what the planner
// thought were a handful of rows) until autovacuum caught up. So the
// store runs ANALYZE itself, in the background, as soon as the facts it
// wrote since its last one reach autovacuum's own threshold: 50 + 10 %
// of the facts it counted then.

// analyzeTables are the tables whose statistics recall's plans depend on.
const analyzeTables = `facts, fact_lexemes, lexemes, documents, doc_lexemes, doc_stats, entities, entity_aliases, links, relations, observations`

// analyzer counts the facts written since the last ANALYZE.
type analyzer struct {
	mu      sync.Mutex
	pending int64 // facts written since the last ANALYZE began
	base    int64 // facts written up to it (the process's view)
	running bool
	runs    int // ANALYZEs run (for tests)
}

// noteFacts counts n facts written and starts an ANALYZE in the
// background when they cross the threshold and none is running.
func (s *Store) noteFacts(n int) {
	if n <= 0 {
		return
	}
	a := &s.analyze
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending += int64(n)
	if a.running || a.pending < 50+a.base/10 {
		return
	}
	a.running = true
	s.wg.Add(1)
	go s.runAnalyze()
}

// runAnalyze analyses the tables until no more facts than the threshold
// were written meanwhile. A failure is dropped: autovacuum remains.
func (s *Store) runAnalyze() {
	defer s.wg.Done()
	a := &s.analyze
	for {
		a.mu.Lock()
		n := a.pending
		a.pending = 0
		a.base += n
		a.mu.Unlock()
		_, err := s.pool.Exec(s.ctx, `ANALYZE `+analyzeTables)
		a.mu.Lock()
		a.runs++
		if err != nil || s.ctx.Err() != nil || a.pending < 50+a.base/10 {
			a.running = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
	}
}

// waitAnalyzed blocks until no ANALYZE is running (for tests). An
// ANALYZE of a bank's tables takes milliseconds: it polls.
func (s *Store) waitAnalyzed(ctx context.Context) error {
	for {
		s.analyze.mu.Lock()
		running := s.analyze.running
		s.analyze.mu.Unlock()
		if !running {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// added is the number of facts the transaction's batches added.
func (t *totals) added() int {
	n := 0
	for _, bt := range t.banks {
		n += len(bt.added)
	}
	return n
}

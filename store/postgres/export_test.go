package postgres

import "context"

// WaitAnalyzed waits for a background ANALYZE; AnalyzeRuns counts them.
func (s *Store) WaitAnalyzed(ctx context.Context) error { return s.waitAnalyzed(ctx) }
func (s *Store) AnalyzeRuns() int {
	s.analyze.mu.Lock()
	defer s.analyze.mu.Unlock()
	return s.analyze.runs
}

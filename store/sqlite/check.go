package sqlite

import (
	"context"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// Check verifies the file: SQLite's integrity check, and that no row is
// orphaned — every chunk and fact belongs to a stored document, every
// entity ref and link to a stored fact — which is what an interrupted
// write would leave if a document were not written atomically. It
// returns an EINTERNAL *memory.Error naming the first problem found.
func (s *Store) Check(ctx context.Context) error {
	var res string
	if err := s.rdb.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return memory.Errorf(memory.EINTERNAL, "integrity check: %s", res)
	}
	checks := []struct{ what, query string }{
		{"chunks without a document", `SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.bank_id = c.bank_id AND d.id = c.document_id)`},
		{"facts without a document", `SELECT count(*) FROM facts f WHERE f.document_id != '' AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.bank_id = f.bank_id AND d.id = f.document_id)`},
		{"entity refs without a fact", `SELECT count(*) FROM entity_refs r WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.bank_id = r.bank_id AND f.id = r.fact_id)`},
		{"links without a fact", `SELECT count(*) FROM links l WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.bank_id = l.bank_id AND f.id = l.from_id)`},
		{"documents without their facts", `SELECT count(*) FROM documents d WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.bank_id = d.bank_id AND c.document_id = d.id)
			AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.bank_id = d.bank_id AND f.document_id = d.id)`},
	}
	for _, c := range checks {
		var n int
		if err := s.rdb.QueryRowContext(ctx, c.query).Scan(&n); err != nil {
			return fmt.Errorf("check %s: %w", c.what, err)
		}
		if n > 0 {
			return memory.Errorf(memory.EINTERNAL, "check: %d %s", n, c.what)
		}
	}
	return nil
}

// DocumentFacts maps the item id of every document of a bank to its
// number of facts: what a crash test compares with an uninterrupted run.
func (s *Store) DocumentFacts(ctx context.Context, bankID string) (map[string]int, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT d.source || ':' || d.item_id, (SELECT count(*) FROM facts f WHERE f.bank_id = d.bank_id AND f.document_id = d.id)
		FROM documents d WHERE d.bank_id = ?`, bankID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var item string
		var n int
		if err := rows.Scan(&item, &n); err != nil {
			return nil, err
		}
		out[item] = n
	}
	return out, rows.Err()
}

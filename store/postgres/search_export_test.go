package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

// ExplainVector returns the plan PostgreSQL makes for a statement of
// SearchVector in a bank with an HNSW index: when few, the count and
// exact scan of searchFew, else the index scan of searchHNSW with its
// settings.
func (s *Store) ExplainVector(ctx context.Context, bank string, vec []float32, k int, flt memory.Filter, few bool) (string, error) {
	var dim int
	var facts int64
	if err := s.pool.QueryRow(ctx, `SELECT dimension, fact_count FROM banks WHERE id = $1`, bank).Scan(&dim, &facts); err != nil {
		return "", err
	}
	q := pgvector.NewVector(vec)
	var sqls []string
	var ps []params
	var set []string
	if few {
		sql, p := fewSQL(bank, q, k, ExactFilterFacts, flt)
		sqls, ps = append(sqls, sql), append(ps, p)
	} else {
		sql, p, st := hnswSQL(bank, dim, facts, q, k, DefaultEFSearch, flt)
		sqls, ps, set = append(sqls, sql), append(ps, p), st
	}
	var plan strings.Builder
	err := s.tx(ctx, func(tx pgx.Tx) error {
		for _, st := range set {
			if _, err := tx.Exec(ctx, st); err != nil {
				return err
			}
		}
		for i, sql := range sqls {
			rows, err := tx.Query(ctx, `EXPLAIN `+sql, ps[i]...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					rows.Close()
					return err
				}
				plan.WriteString(line + "\n")
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return plan.String(), err
}

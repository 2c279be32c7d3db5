package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/memory"
)

// BM25 constants (Okapi BM25 as in Lucene, the same as store/sqlite).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// SearchVector implements memory.Store. Below the bank's HNSW threshold
// (or before its index is built, which the first search past it starts)
// the scan is exact: every fact of the bank
// that passes the filter is compared. With the bank's HNSW index it is
// approximate, the filter applied during an iterative index scan. The
// score is always the exact cosine of the hits.
func (s *Store) SearchVector(ctx context.Context, bankID string, vec []float32, k int, flt memory.Filter) ([]memory.Hit, error) {
	var dim, hnswDim int
	var facts int64
	err := s.pool.QueryRow(ctx, `SELECT dimension, hnsw_dim, fact_count FROM banks WHERE id = $1`, bankID).Scan(&dim, &hnswDim, &facts)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, unknownBank(bankID)
	}
	if err != nil {
		return nil, err
	}
	if k <= 0 || dim == 0 {
		return nil, nil
	}
	if len(vec) != dim {
		return nil, memory.Errorf(memory.EINVALID, "query vector has dimension %d, bank %q holds dimension %d", len(vec), bankID, dim)
	}
	q := pgvector.NewVector(vec)
	if hnswDim == dim {
		return s.searchHNSW(ctx, bankID, dim, q, k, flt)
	}
	s.startIndexBuild(bankID, facts)
	return s.searchExact(ctx, bankID, q, k, flt)
}

// searchHNSW answers from the bank's HNSW index: a partial index, so the
// bank id is spelled into the statement (as a quoted literal) for the
// planner to match the index's predicate.
func (s *Store) searchHNSW(ctx context.Context, bankID string, dim int, q pgvector.Vector, k int, flt memory.Filter) ([]memory.Hit, error) {
	ef := s.EFSearch
	if ef <= 0 {
		ef = DefaultEFSearch
	}
	ef = max(ef, k)
	var hits []memory.Hit
	err := s.tx(ctx, func(tx pgx.Tx) error {
		// SET LOCAL takes no parameters; both are integers the store made.
		if _, err := tx.Exec(ctx, `SET LOCAL hnsw.ef_search = `+strconv.Itoa(min(ef, 1000))); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = relaxed_order`); err != nil {
			return err
		}
		cast := `(f.embedding::vector(` + strconv.Itoa(dim) + `))`
		p := params{q}
		cond := filterSQL(flt, &p)
		// relaxed_order may return neighbours slightly out of order: the
		// outer query orders the exact distances.
		rows, err := tx.Query(ctx, `SELECT id, score FROM (
				SELECT f.id, f.seq, 1 - (`+cast+` <=> $1) AS score FROM facts f
				WHERE f.bank_id = `+quoteLiteral(bankID)+` AND f.embedding IS NOT NULL`+cond+`
				ORDER BY `+cast+` <=> $1 LIMIT `+p.add(k)+`) h
			ORDER BY score DESC, seq`, p...)
		if err != nil {
			return err
		}
		hits, err = scanHits(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return hits, nil
}

// quoteLiteral quotes s as an SQL string literal. Bank ids pass
// memory.ValidateBankName and hold no quote; doubling them anyway keeps
// this safe for any string.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// SearchText implements memory.Store: Okapi BM25 (k1 1.2, b 0.75, Lucene
// IDF) with the bank's own statistics over the English text search vectors
// of the facts' speaker and text. The terms are parsed as document text
// (to_tsvector), never as query syntax: the tsquery is built from the
// resulting lexemes, each quoted, ORed.
//
// Two statements: the first reads the bank's statistics and each query
// lexeme's document frequency (table lexemes); the second
// scores the facts that match any lexeme (term frequencies from the
// stored tsvector's positions, length from its word count).
func (s *Store) SearchText(ctx context.Context, bankID string, terms []string, k int, flt memory.Filter) ([]memory.Hit, error) {
	text := strings.Join(terms, " \n ")
	rows, err := s.pool.Query(ctx, `SELECT b.fact_count, b.fact_words, w.lexeme, coalesce(l.df, 0)
		FROM banks b LEFT JOIN LATERAL (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english'::regconfig, $2::text))) w ON true
		LEFT JOIN lexemes l ON l.bank_id = b.id AND l.lexeme = w.lexeme
		WHERE b.id = $1`, bankID, text)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	var n, words float64
	var lexemes []string
	var idfs []float64
	found := false
	for rows.Next() {
		var lexeme *string
		var df int64
		var nf, nw int64
		if err := rows.Scan(&nf, &nw, &lexeme, &df); err != nil {
			rows.Close()
			return nil, err
		}
		found = true
		n, words = float64(nf), float64(nw)
		if lexeme == nil || df == 0 {
			continue
		}
		d := float64(df)
		lexemes = append(lexemes, *lexeme)
		idfs = append(idfs, math.Log(1+(n-d+0.5)/(d+0.5)))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	if !found {
		return nil, unknownBank(bankID)
	}
	if k <= 0 || len(lexemes) == 0 || n == 0 {
		return nil, nil
	}
	avg := words / n
	p := params{bankID, lexemes, idfs}
	cond := filterSQL(flt, &p)
	norm := func(col string) string {
		if avg <= 0 {
			return strconv.FormatFloat(bm25K1, 'g', -1, 64)
		}
		return fmt.Sprintf("%g * (1 - %g + %g * %s / %s)", bm25K1, bm25B, bm25B, col, p.add(avg))
	}
	rows, err = s.pool.Query(ctx, `SELECT f.id, sum(q.idf * t.tf * `+strconv.FormatFloat(bm25K1+1, 'g', -1, 64)+` / (t.tf + `+norm("f.words")+`)) AS score
		FROM facts f
		CROSS JOIN LATERAL (SELECT u.lexeme, cardinality(u.positions)::float8 AS tf FROM unnest(f.tsv) u) t
		JOIN unnest($2::text[], $3::float8[]) AS q(lexeme, idf) ON q.lexeme = t.lexeme
		WHERE f.bank_id = $1 AND f.tsv @@ mnemo_lexemes_query($2::text[])`+cond+`
		GROUP BY f.id, f.seq
		ORDER BY score DESC, f.seq LIMIT `+p.add(k), p...)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	return scanHits(rows)
}

// SearchVectorExact is SearchVector by exact scan, even in a bank with an
// HNSW index (to measure the index's recall).
func (s *Store) SearchVectorExact(ctx context.Context, bankID string, vec []float32, k int, flt memory.Filter) ([]memory.Hit, error) {
	var dim int
	err := s.pool.QueryRow(ctx, `SELECT dimension FROM banks WHERE id = $1`, bankID).Scan(&dim)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, unknownBank(bankID)
	}
	if err != nil {
		return nil, err
	}
	if k <= 0 || dim == 0 {
		return nil, nil
	}
	if len(vec) != dim {
		return nil, memory.Errorf(memory.EINVALID, "query vector has dimension %d, bank %q holds dimension %d", len(vec), bankID, dim)
	}
	return s.searchExact(ctx, bankID, pgvector.NewVector(vec), k, flt)
}

// searchExact compares every fact of the bank that passes the filter.
func (s *Store) searchExact(ctx context.Context, bankID string, q pgvector.Vector, k int, flt memory.Filter) ([]memory.Hit, error) {
	p := params{bankID, q}
	cond := filterSQL(flt, &p)
	rows, err := s.pool.Query(ctx, `SELECT f.id, 1 - (f.embedding <=> $2) FROM facts f
		WHERE f.bank_id = $1 AND f.embedding IS NOT NULL`+cond+`
		ORDER BY f.embedding <=> $2, f.seq LIMIT `+p.add(k), p...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return scanHits(rows)
}

var _ memory.DocumentSearcher = (*Store)(nil)

// SearchDocuments implements memory.DocumentSearcher: Okapi BM25 over
// documents, each the text of all its facts (any status), with the
// statistics of the bank's documents that have facts — computed by the
// query from the facts' stored text search vectors, so they are always
// current. Its cost follows the bank's size (one pass over its facts'
// word counts) and the matching facts.
func (s *Store) SearchDocuments(ctx context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	if k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `WITH q AS (SELECT array_agg(DISTINCT lexeme) AS lexemes FROM unnest(to_tsvector('english'::regconfig, $2::text))),
		docs AS (SELECT document_id, sum(words)::float8 AS len, min(seq) AS first FROM facts
			WHERE bank_id = $1 AND document_id <> '' GROUP BY document_id),
		stats AS (SELECT count(*)::float8 AS n, coalesce(avg(len), 0) AS avg FROM docs),
		tf AS (SELECT f.document_id, u.lexeme, sum(cardinality(u.positions))::float8 AS tf
			FROM facts f CROSS JOIN LATERAL unnest(f.tsv) u, q
			WHERE f.bank_id = $1 AND f.document_id <> '' AND q.lexemes IS NOT NULL
				AND f.tsv @@ mnemo_lexemes_query(q.lexemes) AND u.lexeme = ANY(q.lexemes)
			GROUP BY f.document_id, u.lexeme),
		df AS (SELECT lexeme, count(*)::float8 AS df FROM tf GROUP BY lexeme)
		SELECT tf.document_id, sum(ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5)) * tf.tf * $3
				/ (tf.tf + $4 * (1 - $5 + $5 * d.len / greatest(stats.avg, 1e-9)))) AS score
		FROM tf JOIN df ON df.lexeme = tf.lexeme JOIN docs d ON d.document_id = tf.document_id CROSS JOIN stats
		GROUP BY tf.document_id, d.first
		ORDER BY score DESC, d.first LIMIT $6`,
		bankID, strings.Join(terms, " \n "), bm25K1+1, bm25K1, bm25B, k)
	if err != nil {
		return nil, fmt.Errorf("document search: %w", err)
	}
	return scanHits(rows)
}

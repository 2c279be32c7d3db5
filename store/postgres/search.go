package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/internal/bm25"
	"github.com/mnemo-ai/mnemo/memory"
)

// SearchVector implements memory.Store. Below the bank's HNSW threshold
// (or before its index is built, which the first search past it starts)
// the scan is exact: every fact of the bank that passes the filter is
// compared. With the bank's HNSW index, a search under a filter that
// the planner expects to pass few facts (estimateFacts) reads the facts
// that pass it, up to ExactFilterFacts + 1, through the indexes on tags
// and event time; when there are no more than ExactFilterFacts, they
// are compared exactly, as the SQLite store does under a selective
// filter. Otherwise, and always without a filter, the answer is
// approximate, from an iterative scan of the index that applies the
// filter as it goes. The score is always the exact cosine of the hits.
func (s *Store) SearchVector(ctx context.Context, bankID string, vec []float32, k int, flt memory.Filter) ([]memory.Hit, error) {
	var dim, hnswDim int
	var facts int64
	err := s.pool.QueryRow(ctx, `SELECT dimension, hnsw_dim, fact_count FROM banks WHERE id = $1`, bankID).Scan(&dim, &hnswDim, &facts)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.UnknownBank(bankID)
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
	if hnswDim != dim {
		s.startIndexBuild(bankID, facts)
		return s.searchExact(ctx, bankID, q, k, flt)
	}
	if !plainFilter(flt) {
		est, err := s.estimateFacts(ctx, bankID, flt)
		if err != nil {
			return nil, err
		}
		if est <= estimateMargin*ExactFilterFacts {
			hits, few, err := s.searchFew(ctx, bankID, q, k, flt)
			if err != nil || few {
				return hits, err
			}
		}
	}
	return s.searchHNSW(ctx, bankID, dim, facts, q, k, flt)
}

// ExactFilterFacts is the most facts a filter may pass for a vector
// search in a bank with an HNSW index to compare them all rather than
// scan the index. Reading the passing facts through the tag or time
// index and comparing them costs about 1.5 µs a fact (dimension 384,
// measured), a filtered index scan a few milliseconds, and an index
// scan under a selective filter misses some of the nearest (recall@10
// 0.91 for a tag on 1.5% of 30,000 facts; docs/postgres.md).
const ExactFilterFacts = 1000

// hnswOverfetch is how many times k neighbours a filtered search takes
// from the index before ranking them by their exact distance: an
// iterative scan in relaxed order returns the neighbours of each round
// roughly ordered, so the k nearest that pass the filter are not always
// the first k it returns.
const hnswOverfetch = 4

// estimateMargin is how many times ExactFilterFacts the planner's
// estimate of the facts a filter passes may be for the search to read
// them: the estimate takes the filter's conditions as independent and
// may be off; reading ExactFilterFacts + 1 facts in vain costs about
// 3 ms (a tag on 8% of 30,000 facts), the estimate a plan (a fraction
// of a millisecond).
const estimateMargin = 2

// estimateFacts returns the planner's estimate of the bank's facts that
// pass flt, from its statistics (tags: most common elements; event time:
// histogram), without reading them.
func (s *Store) estimateFacts(ctx context.Context, bankID string, flt memory.Filter) (float64, error) {
	p := params{bankID}
	cond := filterSQL(flt, &p)
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	err := s.pool.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT 1 FROM facts f
		WHERE f.bank_id = $1 AND f.embedding IS NOT NULL`+cond, p...).Scan(&plan)
	if err != nil {
		return 0, fmt.Errorf("vector search: estimate: %w", err)
	}
	if len(plan) == 0 {
		return 0, fmt.Errorf("vector search: estimate: empty plan")
	}
	return plan[0].Plan.Rows, nil
}

// plainFilter reports whether flt keeps only what every search keeps
// (active facts, sensitive ones or not): almost every fact of a bank
// passes it, so counting them first would only cost time.
func plainFilter(flt memory.Filter) bool {
	return len(flt.Kinds) == 0 && len(flt.Categories) == 0 && len(flt.Tags) == 0 &&
		flt.From.IsZero() && flt.To.IsZero() && flt.AsOf.IsZero() &&
		(len(flt.Statuses) == 0 || len(flt.Statuses) == 1 && flt.Statuses[0] == memory.StatusActive)
}

// fewSQL is searchFew's statement: the facts that pass flt, at most
// limit + 1 of them, with their distance to the query ($2) and their
// number (n), nearest k first (ties by seq, as exactSQL). It finds them
// through the index that suits the filter (tags: facts_tags; a time
// range: facts_event_time), never the HNSW index, as it orders nothing
// before its LIMIT; one pass over them both counts and ranks them.
func fewSQL(bankID string, q pgvector.Vector, k, limit int, flt memory.Filter) (string, params) {
	p := params{bankID, q}
	cond := filterSQL(flt, &p)
	return `SELECT id, 1 - d, n FROM (
			SELECT m.id, m.seq, m.d, count(*) OVER () AS n FROM (
				SELECT f.id, f.seq, f.embedding <=> $2 AS d FROM facts f
				WHERE f.bank_id = $1 AND f.embedding IS NOT NULL` + cond + `
				LIMIT ` + p.add(limit+1) + `) m) c
		ORDER BY d, seq LIMIT ` + p.add(k), p
}

// searchFew answers by comparing every fact that passes flt, and reports
// few, when there are at most ExactFilterFacts of them; else it reports
// false, having read ExactFilterFacts + 1 of them. Its hits are those of
// searchExact.
func (s *Store) searchFew(ctx context.Context, bankID string, q pgvector.Vector, k int, flt memory.Filter) (hits []memory.Hit, few bool, err error) {
	sql, p := fewSQL(bankID, q, k, ExactFilterFacts, flt)
	rows, err := s.pool.Query(ctx, sql, p...)
	if err != nil {
		return nil, false, fmt.Errorf("vector search: %w", err)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var h memory.Hit
		if err := rows.Scan(&h.ID, &h.Score, &n); err != nil {
			return nil, false, fmt.Errorf("vector search: %w", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("vector search: %w", err)
	}
	if n > ExactFilterFacts {
		return nil, false, nil
	}
	return hits, true, nil
}

// hnswSQL is searchHNSW's statement and the settings it runs with. The
// index is partial, so the bank id is spelled into the statement (as a
// quoted literal) for the planner to match the index's predicate. A
// filtered search takes hnswOverfetch × k neighbours from the index
// (relaxed order: roughly nearest first) and keeps the k nearest by
// their exact distance; it may visit up to hnswOverfetch × that many
// facts as there are facts for each ExactFilterFacts that pass (at
// least pgvector's default, 20,000), so a filter just above
// ExactFilterFacts does not stop the scan early.
func hnswSQL(bankID string, dim int, facts int64, q pgvector.Vector, k, ef int, flt memory.Filter) (string, params, []string) {
	ef = min(max(ef, k), 1000)
	// SET LOCAL takes no parameters; the values are integers made here.
	set := []string{
		`SET LOCAL hnsw.ef_search = ` + strconv.Itoa(ef),
		`SET LOCAL hnsw.iterative_scan = relaxed_order`,
	}
	fetch := k
	if !plainFilter(flt) {
		fetch = max(k, min(hnswOverfetch*k, ef))
		visit := max(20000, int64(hnswOverfetch*fetch)*facts/ExactFilterFacts)
		set = append(set, `SET LOCAL hnsw.max_scan_tuples = `+strconv.FormatInt(min(visit, math.MaxInt32), 10))
	}
	cast := `(f.embedding::vector(` + strconv.Itoa(dim) + `))`
	p := params{q}
	cond := filterSQL(flt, &p)
	// relaxed_order may return neighbours slightly out of order: the
	// outer query orders the exact distances.
	return `SELECT id, score FROM (
			SELECT f.id, f.seq, 1 - (` + cast + ` <=> $1) AS score FROM facts f
			WHERE f.bank_id = ` + quoteLiteral(bankID) + ` AND f.embedding IS NOT NULL` + cond + `
			ORDER BY ` + cast + ` <=> $1 LIMIT ` + p.add(fetch) + `) h
		ORDER BY score DESC, seq LIMIT ` + p.add(k), p, set
}

// searchHNSW answers from the bank's HNSW index (hnswSQL).
func (s *Store) searchHNSW(ctx context.Context, bankID string, dim int, facts int64, q pgvector.Vector, k int, flt memory.Filter) ([]memory.Hit, error) {
	ef := s.EFSearch
	if ef <= 0 {
		ef = DefaultEFSearch
	}
	sql, p, set := hnswSQL(bankID, dim, facts, q, k, ef, flt)
	var hits []memory.Hit
	err := s.tx(ctx, func(tx pgx.Tx) error {
		for _, st := range set {
			if _, err := tx.Exec(ctx, st); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, sql, p...)
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

// SearchText implements memory.Store: Okapi BM25 (package internal/bm25:
// Lucene IDF, k1 1.2, b 0.75) with the bank's own statistics over the
// English text search vectors of the facts' bodies (memory.Body; runs of
// CJK characters split into character pairs by mnemo_cjk, as package lex
// splits them, migration 016). The terms are parsed as document text (to_tsvector), never as query syntax:
// only the resulting lexemes are looked up.
//
// The first statement reads the bank's statistics and each query
// lexeme's document frequency and bounds (table lexemes). The facts are
// then scored from their postings (table fact_lexemes: an index-only scan
// of the query's lexemes, never the facts' rows), best first, and only
// the best are read (by seq) to apply the filter; more of the ranking is
// read only while too few of them pass.
//
// Top k with MaxScore pruning: a lexeme contributes at most its bound
// (its IDF at the largest term frequency and shortest fact it occurs
// in), so the common lexemes whose bounds sum below the k-th best score
// cannot lift a fact that holds none of the others into the top k. The
// search first ranks only the facts that hold one of the rarer
// ("essential") lexemes, scored on all of them; when the k-th score it
// finds is above the bounds of the rest, that is the answer, else it
// ranks every fact that holds any lexeme. Either way the hits are the
// exact top k.
func (s *Store) SearchText(ctx context.Context, bankID string, terms []string, k int, flt memory.Filter) ([]memory.Hit, error) {
	text := strings.Join(terms, " \n ")
	rows, err := s.pool.Query(ctx, `SELECT b.fact_count, b.fact_words, w.lexeme, coalesce(l.df, 0), coalesce(l.max_tf, 0), coalesce(l.min_words, 0)
		FROM banks b LEFT JOIN LATERAL (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english'::regconfig, mnemo_cjk($2::text)))) w ON true
		LEFT JOIN lexemes l ON l.bank_id = b.id AND l.lexeme = w.lexeme
		WHERE b.id = $1`, bankID, text)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	type term struct {
		lexeme            string
		df, maxTF, minLen int64
		idf, bound        float64
	}
	var n, words float64
	var qs []term
	found := false
	for rows.Next() {
		var lexeme *string
		var t term
		var nf, nw int64
		if err := rows.Scan(&nf, &nw, &lexeme, &t.df, &t.maxTF, &t.minLen); err != nil {
			rows.Close()
			return nil, err
		}
		found = true
		n, words = float64(nf), float64(nw)
		if lexeme == nil || t.df == 0 {
			continue
		}
		t.lexeme = *lexeme
		t.idf = bm25.IDF(n, float64(t.df))
		qs = append(qs, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	if !found {
		return nil, memory.UnknownBank(bankID)
	}
	if k <= 0 || len(qs) == 0 || n == 0 {
		return nil, nil
	}
	// The fact's length normalisation, bm25.Norm, as c0 + c1 len.
	c0, c1 := bm25.Linear(words / n)
	for i := range qs {
		t := &qs[i]
		// tf (k1+1) / (tf + c0 + c1 len) grows with tf and shrinks with
		// len: its bound is at the largest tf and the fewest words (no
		// bound recorded: any tf, no words).
		t.bound = t.idf * (bm25.K1 + 1)
		if tf := float64(t.maxTF); tf > 0 {
			t.bound *= tf / (tf + c0 + c1*float64(max(t.minLen, 0)))
		}
	}
	lexemes, idfs := make([]string, len(qs)), make([]float64, len(qs))
	for i, t := range qs {
		lexemes[i], idfs[i] = t.lexeme, t.idf
	}
	// The non-essential lexemes: the weakest bounds, as long as their sum
	// stays well below the strongest bound (a guess at the k-th score,
	// checked below) and the rest still hold more than k facts.
	slices.SortFunc(qs, func(a, b term) int { return cmp.Compare(a.bound, b.bound) })
	var rest, essentialDF float64
	for _, t := range qs {
		essentialDF += float64(t.df)
	}
	cut := 0
	for cut < len(qs)-1 {
		t := qs[cut]
		if rest+t.bound > 0.5*qs[len(qs)-1].bound || essentialDF-float64(t.df) < float64(2*k) {
			break
		}
		rest += t.bound
		essentialDF -= float64(t.df)
		cut++
	}
	if cut > 0 {
		essential := make([]string, 0, len(qs)-cut)
		for _, t := range qs[cut:] {
			essential = append(essential, t.lexeme)
		}
		hits, err := s.rankText(ctx, bankID, lexemes, idfs, essential, c0, c1, k, flt)
		if err != nil {
			return nil, err
		}
		// A fact holding none of the essential lexemes scores at most
		// rest: below the k-th hit (with a margin for rounding), it is
		// not in the top k.
		if len(hits) >= k && hits[k-1].Score > rest*(1+1e-9)+1e-12 {
			return hits, nil
		}
	}
	return s.rankText(ctx, bankID, lexemes, idfs, nil, c0, c1, k, flt)
}

// rankText returns the top k facts that pass flt by BM25 over the query's
// lexemes (with their IDFs; c0 + c1 len the length normalisation), among
// the facts that hold one of essential (nil: any of lexemes). The SQL sums
// bm25.Term per lexeme, spelled out (TestStore_SearchTextScoresAreBM25
// checks the two agree).
func (s *Store) rankText(ctx context.Context, bankID string, lexemes []string, idfs []float64, essential []string, c0, c1 float64, k int, flt memory.Filter) ([]memory.Hit, error) {
	p := params{bankID, lexemes, idfs, bm25.K1 + 1, c0, c1}
	only := ""
	if essential != nil {
		only = ` AND t.seq IN (SELECT e.seq FROM fact_lexemes e WHERE e.bank_id = $1 AND e.lexeme = ANY(` + p.add(essential) + `::text[]))`
	}
	cond := filterSQL(flt, &p)
	limit, offset := p.add(0), p.add(0)
	sql := `SELECT f.id, c.score, c.seq FROM (
			SELECT t.seq, sum(q.idf * $4::float8 * t.tf / (t.tf + $5::float8 + $6::float8 * t.words)) AS score
			FROM fact_lexemes t JOIN unnest($2::text[], $3::float8[]) AS q(lexeme, idf) ON q.lexeme = t.lexeme
			WHERE t.bank_id = $1 AND t.lexeme = ANY($2::text[])` + only + `
			GROUP BY t.seq ORDER BY score DESC, t.seq LIMIT ` + limit + ` OFFSET ` + offset + `) c
		LEFT JOIN facts f ON f.bank_id = $1 AND f.seq = c.seq` + cond
	type cand struct {
		hit memory.Hit
		seq int64
	}
	var hits []cand
	for m, off := k+k/4+16, 0; ; off, m = off+m, m*4 {
		p[len(p)-2], p[len(p)-1] = m, off
		rows, err := s.pool.Query(ctx, sql, p...)
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		seen := 0
		for rows.Next() {
			var id *string
			var c cand
			if err := rows.Scan(&id, &c.hit.Score, &c.seq); err != nil {
				rows.Close()
				return nil, fmt.Errorf("text search: %w", err)
			}
			seen++
			if id != nil {
				c.hit.ID = *id
				hits = append(hits, c)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		if len(hits) >= k || seen < m {
			break
		}
	}
	slices.SortFunc(hits, func(a, b cand) int {
		if c := cmp.Compare(b.hit.Score, a.hit.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	out := make([]memory.Hit, 0, min(k, len(hits)))
	for _, c := range hits[:min(k, len(hits))] {
		out = append(out, c.hit)
	}
	return out, nil
}

// SearchVectorExact is SearchVector by exact scan, even in a bank with an
// HNSW index (to measure the index's recall).
func (s *Store) SearchVectorExact(ctx context.Context, bankID string, vec []float32, k int, flt memory.Filter) ([]memory.Hit, error) {
	var dim int
	err := s.pool.QueryRow(ctx, `SELECT dimension FROM banks WHERE id = $1`, bankID).Scan(&dim)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.UnknownBank(bankID)
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

// exactSQL is searchExact's statement. It orders by the untyped
// column, which no HNSW index covers: the planner finds the facts by the
// bank and the filter (its indexes on tags and event time) and sorts
// them.
func exactSQL(bankID string, q pgvector.Vector, k int, flt memory.Filter) (string, params) {
	p := params{bankID, q}
	cond := filterSQL(flt, &p)
	return `SELECT f.id, 1 - (f.embedding <=> $2) FROM facts f
		WHERE f.bank_id = $1 AND f.embedding IS NOT NULL` + cond + `
		ORDER BY f.embedding <=> $2, f.seq LIMIT ` + p.add(k), p
}

// searchExact compares every fact of the bank that passes the filter.
func (s *Store) searchExact(ctx context.Context, bankID string, q pgvector.Vector, k int, flt memory.Filter) ([]memory.Hit, error) {
	sql, p := exactSQL(bankID, q, k, flt)
	rows, err := s.pool.Query(ctx, sql, p...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return scanHits(rows)
}

var _ memory.DocumentSearcher = (*Store)(nil)

// SearchDocuments implements memory.DocumentSearcher: Okapi BM25 over
// documents, each the text of all its facts (any status), with the
// statistics of the bank's documents that have facts, kept by every write
// (doc_stats: each document's length and first seq; doc_lexemes: each
// lexeme's term frequency in each document, keyed by lexeme). Its cost
// follows the postings of the query's lexemes (and one pass over the
// bank's document lengths), not the bank's facts. The SQL spells out
// bm25.IDF, bm25.Norm and bm25.Term.
func (s *Store) SearchDocuments(ctx context.Context, bankID string, terms []string, k int) ([]memory.Hit, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	if k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `WITH q AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english'::regconfig, mnemo_cjk($2::text)))),
		stats AS (SELECT count(*)::float8 AS n, coalesce(avg(words), 0)::float8 AS avg FROM doc_stats WHERE bank_id = $1),
		df AS (SELECT q.lexeme, count(*)::float8 AS df FROM q JOIN doc_lexemes d ON d.bank_id = $1 AND d.lexeme = q.lexeme
			GROUP BY q.lexeme)
		SELECT d.document_id, sum(ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5)) * d.tf * $3
				/ (d.tf + $4 * (1 - $5 + $5 * s.words / greatest(stats.avg, 1e-9)))) AS score
		FROM df JOIN doc_lexemes d ON d.bank_id = $1 AND d.lexeme = df.lexeme
			JOIN doc_stats s ON s.bank_id = $1 AND s.document_id = d.document_id CROSS JOIN stats
		GROUP BY d.document_id, s.first_seq
		ORDER BY score DESC, s.first_seq LIMIT $6`,
		bankID, strings.Join(terms, " \n "), bm25.K1+1, bm25.K1, bm25.B, k)
	if err != nil {
		return nil, fmt.Errorf("document search: %w", err)
	}
	return scanHits(rows)
}

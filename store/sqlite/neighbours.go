package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
)

// neighboursChunk is the number of fact ids one execution of the prepared
// neighbours statement takes; shorter lists are padded with "", which no
// fact id is.
const neighboursChunk = 128

// neighboursSQL finds, for each asked fact (q), the radius facts of its
// document just before it and just after it. Within a bank pk order is
// Seq order (both are assigned in insertion order), so each side is a
// short range scan of facts_document (bank_id, document_id, pk) whatever
// the document's size. Parameters: bank, the ids, bank, radius, bank,
// radius.
var neighboursSQL = `WITH q(id, pk, doc, seq) AS (
	SELECT id, pk, document_id, seq FROM facts WHERE bank_id = ? AND id IN (` +
	strings.TrimSuffix(strings.Repeat("?,", neighboursChunk), ",") + `))
SELECT q.id, q.id, q.seq FROM q
UNION ALL
SELECT q.id, f.id, f.seq FROM q JOIN facts f ON f.pk IN (
	SELECT pk FROM facts WHERE bank_id = ? AND document_id = q.doc AND pk < q.pk ORDER BY pk DESC LIMIT ?)
WHERE q.doc != ''
UNION ALL
SELECT q.id, f.id, f.seq FROM q JOIN facts f ON f.pk IN (
	SELECT pk FROM facts WHERE bank_id = ? AND document_id = q.doc AND pk > q.pk ORDER BY pk LIMIT ?)
WHERE q.doc != ''`

// neighbourStmts holds the prepared neighbours statement of each read
// pool (*sql.DB → *sql.Stmt): preparing the statement costs more than
// running it. A closed store's entry only fails, never serves.
var neighbourStmts sync.Map

func (s *Store) neighboursStmt(ctx context.Context) (*sql.Stmt, error) {
	if st, ok := neighbourStmts.Load(s.rdb); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.rdb.PrepareContext(ctx, neighboursSQL)
	if err != nil {
		return nil, err
	}
	if old, loaded := neighbourStmts.LoadOrStore(s.rdb, st); loaded {
		st.Close()
		return old.(*sql.Stmt), nil
	}
	return st, nil
}

// Neighbours implements memory.Store with one prepared query per
// neighboursChunk ids.
func (s *Store) Neighbours(ctx context.Context, bankID string, factIDs []string, radius int) (map[string][]string, error) {
	radius = max(radius, 0)
	type member struct {
		id  string
		seq int64
	}
	asked := make(map[string]bool, len(factIDs))
	for _, id := range factIDs {
		asked[id] = true
	}
	byFact := map[string][]member{}
	if len(factIDs) > 0 {
		st, err := s.neighboursStmt(ctx)
		if err != nil {
			return nil, err
		}
		for start := 0; start < len(factIDs); start += neighboursChunk {
			chunk := factIDs[start:min(start+neighboursChunk, len(factIDs))]
			args := make([]any, 0, neighboursChunk+5)
			args = append(args, bankID)
			for i := range neighboursChunk {
				id := ""
				if i < len(chunk) {
					id = chunk[i]
				}
				args = append(args, id)
			}
			args = append(args, bankID, radius, bankID, radius)
			rows, err := st.QueryContext(ctx, args...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var of string
				var m member
				if err := rows.Scan(&of, &m.id, &m.seq); err != nil {
					rows.Close()
					return nil, err
				}
				if asked[of] {
					byFact[of] = append(byFact[of], m)
				}
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	if len(byFact) == 0 {
		// Nothing found: an unknown bank is an error, unknown ids are not.
		if err := requireBank(ctx, s.rdb, bankID); err != nil {
			return nil, err
		}
	}
	out := make(map[string][]string, len(byFact))
	for of, ms := range byFact {
		slices.SortFunc(ms, func(a, b member) int { return cmp.Compare(a.seq, b.seq) })
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.id
		}
		out[of] = ids
	}
	return out, nil
}

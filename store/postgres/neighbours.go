package postgres

import (
	"cmp"
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/memory"
)

// Neighbours implements memory.Store in one query: for each asked fact,
// the radius facts of its document just before and just after it in Seq
// order, each side a short range scan of facts_document (bank_id,
// document_id, seq).
func (s *Store) Neighbours(ctx context.Context, bankID string, factIDs []string, radius int) (map[string][]string, error) {
	if len(factIDs) == 0 {
		return map[string][]string{}, requireBank(ctx, s.pool, bankID)
	}
	radius = max(radius, 0)
	rows, err := s.pool.Query(ctx, `WITH q AS (SELECT id, document_id AS doc, seq FROM facts WHERE bank_id = $1 AND id = ANY($2))
		SELECT q.id, q.id, q.seq FROM q
		UNION ALL
		SELECT q.id, b.id, b.seq FROM q CROSS JOIN LATERAL (SELECT id, seq FROM facts
			WHERE bank_id = $1 AND document_id = q.doc AND seq < q.seq ORDER BY seq DESC LIMIT $3) b WHERE q.doc <> ''
		UNION ALL
		SELECT q.id, a.id, a.seq FROM q CROSS JOIN LATERAL (SELECT id, seq FROM facts
			WHERE bank_id = $1 AND document_id = q.doc AND seq > q.seq ORDER BY seq LIMIT $3) a WHERE q.doc <> ''`,
		bankID, factIDs, radius)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type member struct {
		id  string
		seq int64
	}
	byFact := map[string][]member{}
	for rows.Next() {
		var of string
		var m member
		if err := rows.Scan(&of, &m.id, &m.seq); err != nil {
			return nil, err
		}
		byFact[of] = append(byFact[of], m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(byFact) == 0 {
		// Nothing found: an unknown bank is an error, unknown ids are not.
		if err := requireBank(ctx, s.pool, bankID); err != nil {
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

var _ memory.Store = (*Store)(nil)

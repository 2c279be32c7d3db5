package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/viterin/vek/vek32"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// Relations implements memory.Store.
func (s *Store) Relations(ctx context.Context, bankID string, q memory.RelationQuery) ([]*memory.Relation, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	where := []string{"bank_id = ?"}
	args := []any{bankID}
	for _, c := range []struct{ col, v string }{{"subject_id", q.SubjectID}, {"predicate", q.Predicate}, {"object_id", q.ObjectID}} {
		if c.v != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	if q.EntityID != "" {
		where = append(where, "(subject_id = ? OR object_id = ?)")
		args = append(args, q.EntityID, q.EntityID)
	}
	if q.Current {
		where = append(where, "expired_at IS NULL")
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at
		FROM relations WHERE `+strings.Join(where, " AND ")+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*memory.Relation
	for rows.Next() {
		r := &memory.Relation{BankID: bankID}
		var facts string
		var vf, vt, exp sql.NullInt64
		var created int64
		if err := rows.Scan(&r.ID, &r.SubjectID, &r.Predicate, &r.ObjectID, &r.Confidence, &facts, &vf, &vt, &created, &exp); err != nil {
			return nil, err
		}
		if err := unmarshalJSON(facts, &r.FactIDs); err != nil {
			return nil, fmt.Errorf("relation %s facts: %w", r.ID, err)
		}
		r.ValidFrom, r.ValidTo, r.CreatedAt, r.ExpiredAt = fromNullMicro(vf), fromNullMicro(vt), fromMicro(created), fromNullMicro(exp)
		out = append(out, r)
	}
	return out, rows.Err()
}

// SupersededBy implements memory.Store.
func (s *Store) SupersededBy(ctx context.Context, bankID string, factIDs []string) ([]*memory.Fact, error) {
	if err := s.requireBank(ctx, bankID); err != nil {
		return nil, err
	}
	if len(factIDs) == 0 {
		return nil, nil
	}
	// Recall asks on every query; most banks have no superseded fact,
	// which the index knows without a scan of the file.
	if n, err := s.mirror.Inactive(ctx, bankID); err != nil || n == 0 {
		return nil, err
	}
	inIDs, args := inPadded(factIDs, bankID)
	rows, err := s.stmts.query(ctx, `SELECT `+factColumns+` FROM facts
		WHERE bank_id = ? AND superseded_by != '' AND superseded_by IN `+inIDs+` ORDER BY seq DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Fact, error) {
		return scanFact(bankID, r)
	})
}

// SimilarEntities implements memory.Store. It scans the embeddings of the
// bank's entities of one type: entity resolution asks it only for names no
// exact or alias match found, and a type holds far fewer entities than a
// bank holds facts.
func (s *Store) SimilarEntities(ctx context.Context, bankID string, t memory.EntityType, vec []float32, k int, min float64) ([]memory.EntityHit, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	if k <= 0 || len(vec) == 0 {
		return nil, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, embedding FROM entities WHERE bank_id = ? AND type = ? AND embedding IS NOT NULL`, bankID, string(t))
	if err != nil {
		return nil, err
	}
	type hit struct {
		id    string
		score float64
	}
	var hits []hit
	buf := make([]float32, len(vec))
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			rows.Close()
			return nil, err
		}
		if len(blob) != 4*len(vec) {
			continue // another embedder's vector: not comparable
		}
		if sc := float64(vek32.Dot(vec, decodeVector(buf[:0], blob))); sc >= min {
			hits = append(hits, hit{id, sc})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].id < hits[j].id
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	ents, err := s.Entities(ctx, bankID, ids)
	if err != nil {
		return nil, err
	}
	byID := map[string]*memory.Entity{}
	for _, e := range ents {
		byID[e.ID] = e
	}
	out := make([]memory.EntityHit, 0, len(hits))
	for _, h := range hits {
		if e := byID[h.id]; e != nil {
			out = append(out, memory.EntityHit{Entity: e, Score: h.score})
		}
	}
	return out, nil
}

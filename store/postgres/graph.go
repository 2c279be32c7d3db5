package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

const relationColumns = `id, subject_id, predicate, object_id, confidence, fact_ids, valid_from, valid_to, created_at, expired_at`

func scanRelation(bank string, r pgx.Row) (*memory.Relation, error) {
	rel := &memory.Relation{BankID: bank}
	var vf, vt, exp *time.Time
	var created time.Time
	if err := r.Scan(&rel.ID, &rel.SubjectID, &rel.Predicate, &rel.ObjectID, &rel.Confidence, &rel.FactIDs, &vf, &vt, &created, &exp); err != nil {
		return nil, err
	}
	if len(rel.FactIDs) == 0 {
		rel.FactIDs = nil
	}
	rel.ValidFrom, rel.ValidTo, rel.CreatedAt, rel.ExpiredAt = tm(vf), tm(vt), created.UTC(), tm(exp)
	return rel, nil
}

// Relations implements memory.Store.
func (s *Store) Relations(ctx context.Context, bankID string, q memory.RelationQuery) ([]*memory.Relation, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	p := params{bankID}
	where := []string{"bank_id = $1"}
	for _, c := range []struct{ col, v string }{{"subject_id", q.SubjectID}, {"predicate", q.Predicate}, {"object_id", q.ObjectID}} {
		if c.v != "" {
			where = append(where, c.col+" = "+p.add(c.v))
		}
	}
	if q.EntityID != "" {
		e := p.add(q.EntityID)
		where = append(where, "(subject_id = "+e+" OR object_id = "+e+")")
	}
	if q.Current {
		where = append(where, "expired_at IS NULL")
	}
	rows, err := s.pool.Query(ctx, `SELECT `+relationColumns+` FROM relations WHERE `+strings.Join(where, " AND ")+` ORDER BY created_at, id`, p...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Relation, error) {
		return scanRelation(bankID, r)
	})
}

// SupersededBy implements memory.Store.
func (s *Store) SupersededBy(ctx context.Context, bankID string, factIDs []string) ([]*memory.Fact, error) {
	if len(factIDs) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+factColumns+` FROM facts f
		WHERE f.bank_id = $1 AND f.superseded_by <> '' AND f.superseded_by = ANY($2) ORDER BY f.seq DESC`, bankID, factIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Fact, error) {
		return scanFact(bankID, r)
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	return out, nil
}

// SimilarEntities implements memory.Store: an exact scan of the bank's
// entities of one type (entity resolution asks only for names no exact
// or alias match found, and a type holds far fewer entities than a bank
// holds facts). Embeddings of another dimension are not comparable and
// are skipped.
func (s *Store) SimilarEntities(ctx context.Context, bankID string, t memory.EntityType, vec []float32, k int, min float64) ([]memory.EntityHit, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	if k <= 0 || len(vec) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+entityColumns+`, h.score FROM (
			SELECT bank_id, id, CASE WHEN vector_dims(embedding) = $4 THEN 1 - (embedding <=> $3) END AS score
			FROM entities WHERE bank_id = $1 AND type = $2 AND embedding IS NOT NULL) h
		JOIN entities e ON e.bank_id = h.bank_id AND e.id = h.id
		WHERE h.score >= $5 ORDER BY h.score DESC, e.id LIMIT $6`,
		bankID, string(t), pgvector.NewVector(vec), len(vec), min, k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory.EntityHit
	for rows.Next() {
		var score float64
		e, err := scanEntity(bankID, rows, &score)
		if err != nil {
			return nil, err
		}
		out = append(out, memory.EntityHit{Entity: e, Score: score})
	}
	return out, rows.Err()
}

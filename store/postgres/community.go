package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// The communities pass's reads and writes (memory.Communities), over
// migration 018's communities and community_marks tables.

var _ memory.Communities = (*Store)(nil)

// Cooccurrences implements memory.Communities: one walk of the bank's
// co-occurrence rows in primary-key order.
func (s *Store) Cooccurrences(ctx context.Context, bankID string) ([]memory.Cooccurrence, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT entity_a, entity_b, count FROM cooccurrences
		WHERE bank_id = $1 AND count > 0 ORDER BY entity_a, entity_b`, bankID)
	if err != nil {
		return nil, fmt.Errorf("co-occurrences: %w", err)
	}
	defer rows.Close()
	out := []memory.Cooccurrence{}
	for rows.Next() {
		var c memory.Cooccurrence
		if err := rows.Scan(&c.EntityA, &c.EntityB, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// GraphMark implements memory.Communities with three aggregates in one
// statement (one snapshot), each a walk of the bank's rows of one table.
func (s *Store) GraphMark(ctx context.Context, bankID string) (memory.GraphMark, error) {
	var m memory.GraphMark
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return m, err
	}
	err := s.pool.QueryRow(ctx, `SELECT
			(SELECT coalesce(max(seq), 0) FROM entity_refs WHERE bank_id = $1),
			(SELECT count(*) FROM entity_refs WHERE bank_id = $1),
			(SELECT count(*) FROM cooccurrences WHERE bank_id = $1 AND count > 0),
			(SELECT coalesce(sum(count), 0)::bigint FROM cooccurrences WHERE bank_id = $1 AND count > 0),
			(SELECT count(*) FROM relations WHERE bank_id = $1),
			(SELECT count(*) FROM relations WHERE bank_id = $1 AND expired_at IS NULL)`, bankID).
		Scan(&m.Seq, &m.Refs, &m.Pairs, &m.Weight, &m.Relations, &m.Open)
	if err != nil {
		return m, fmt.Errorf("graph mark: %w", err)
	}
	return m, nil
}

// communityJSON is a member as the members column spells it.
type communityJSON struct {
	EntityID string  `json:"entity_id"`
	Weight   float64 `json:"weight"`
}

// SaveCommunities implements memory.Communities in one transaction.
func (s *Store) SaveCommunities(ctx context.Context, bankID string, u *memory.CommunityUpdate) error {
	if err := memory.CheckCommunityUpdate(u); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		if len(u.Delete) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM communities WHERE bank_id = $1 AND id = ANY($2)`, bankID, u.Delete); err != nil {
				return fmt.Errorf("delete communities: %w", err)
			}
		}
		for _, c := range u.Put {
			ms := make([]communityJSON, len(c.Members))
			for i, m := range c.Members {
				ms[i] = communityJSON{m.EntityID, m.Weight}
			}
			members, err := json.Marshal(ms)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO communities (bank_id, id, name, members, size, representatives, summary, sources, weight, created_at, updated_at, summarized_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
				ON CONFLICT (bank_id, id) DO UPDATE SET name = excluded.name, members = excluded.members, size = excluded.size,
					representatives = excluded.representatives, summary = excluded.summary, sources = excluded.sources, weight = excluded.weight,
					created_at = excluded.created_at, updated_at = excluded.updated_at, summarized_at = excluded.summarized_at`,
				bankID, c.ID, c.Name, string(members), len(c.Members), strs(c.Representatives), c.Summary, strs(c.Sources), c.Weight,
				ts(c.CreatedAt), ts(c.UpdatedAt), ts(c.SummarizedAt)); err != nil {
				return fmt.Errorf("save community %s: %w", c.ID, err)
			}
		}
		if m := u.Mark; m != nil {
			if _, err := tx.Exec(ctx, `INSERT INTO community_marks (bank_id, seq, refs, pairs, weight, relations, open) VALUES ($1, $2, $3, $4, $5, $6, $7)
				ON CONFLICT (bank_id) DO UPDATE SET seq = excluded.seq, refs = excluded.refs, pairs = excluded.pairs, weight = excluded.weight,
					relations = excluded.relations, open = excluded.open`,
				bankID, m.Seq, m.Refs, m.Pairs, m.Weight, m.Relations, m.Open); err != nil {
				return fmt.Errorf("save community mark: %w", err)
			}
		}
		return nil
	})
}

// ListCommunities implements memory.Communities.
func (s *Store) ListCommunities(ctx context.Context, bankID string) ([]*memory.Community, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, name, members, representatives, summary, sources, weight, created_at, updated_at, summarized_at
		FROM communities WHERE bank_id = $1 ORDER BY size DESC, id`, bankID)
	if err != nil {
		return nil, fmt.Errorf("list communities: %w", err)
	}
	defer rows.Close()
	out := []*memory.Community{}
	for rows.Next() {
		c := &memory.Community{BankID: bankID}
		var members string
		var created, updated time.Time
		var summarized *time.Time
		if err := rows.Scan(&c.ID, &c.Name, &members, &c.Representatives, &c.Summary, &c.Sources, &c.Weight, &created, &updated, &summarized); err != nil {
			return nil, err
		}
		var ms []communityJSON
		if err := json.Unmarshal([]byte(members), &ms); err != nil {
			return nil, fmt.Errorf("community %s: members: %w", c.ID, err)
		}
		c.Members = make([]memory.CommunityMember, len(ms))
		for i, m := range ms {
			c.Members[i] = memory.CommunityMember{EntityID: m.EntityID, Weight: m.Weight}
		}
		c.CreatedAt, c.UpdatedAt, c.SummarizedAt = created.UTC(), updated.UTC(), tm(summarized)
		out = append(out, c)
	}
	return out, rows.Err()
}

// CommunityMark implements memory.Communities.
func (s *Store) CommunityMark(ctx context.Context, bankID string) (memory.GraphMark, bool, error) {
	var m memory.GraphMark
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return m, false, err
	}
	err := s.pool.QueryRow(ctx, `SELECT seq, refs, pairs, weight, relations, open FROM community_marks WHERE bank_id = $1`, bankID).
		Scan(&m.Seq, &m.Refs, &m.Pairs, &m.Weight, &m.Relations, &m.Open)
	if errors.Is(err, pgx.ErrNoRows) {
		return memory.GraphMark{}, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("community mark: %w", err)
	}
	return m, true, nil
}

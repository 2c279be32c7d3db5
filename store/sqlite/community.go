package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-ai/mnemo/memory"
)

// The communities pass's reads and writes (memory.Communities), over
// migration 018's communities and community_marks tables. None of it is
// in the search mirror: recall never reads communities from the store's
// search side.

var _ memory.Communities = (*Store)(nil)

// Cooccurrences implements memory.Communities: one walk of the bank's
// co-occurrence rows in primary-key order.
func (s *Store) Cooccurrences(ctx context.Context, bankID string) ([]memory.Cooccurrence, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT entity_a, entity_b, count FROM cooccurrences
		WHERE bank_id = ? AND count > 0 ORDER BY entity_a, entity_b`, bankID)
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

// GraphMark implements memory.Communities with three aggregates, each a
// walk of the bank's rows of one table by its primary key (refs,
// co-occurrences, relations), in one read transaction so the three agree.
func (s *Store) GraphMark(ctx context.Context, bankID string) (memory.GraphMark, error) {
	var m memory.GraphMark
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return m, err
	}
	defer tx.Rollback()
	if err := requireBank(ctx, tx, bankID); err != nil {
		return m, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0), count(*) FROM entity_refs WHERE bank_id = ?`, bankID).Scan(&m.Seq, &m.Refs); err != nil {
		return m, fmt.Errorf("graph mark: refs: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(count), 0) FROM cooccurrences WHERE bank_id = ? AND count > 0`, bankID).Scan(&m.Pairs, &m.Weight); err != nil {
		return m, fmt.Errorf("graph mark: co-occurrences: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(expired_at IS NULL), 0) FROM relations WHERE bank_id = ?`, bankID).Scan(&m.Relations, &m.Open); err != nil {
		return m, fmt.Errorf("graph mark: relations: %w", err)
	}
	return m, nil
}

// communityJSON is a member as the members column spells it.
type communityJSON struct {
	EntityID string  `json:"entity_id"`
	Weight   float64 `json:"weight"`
}

// SaveCommunities implements memory.Communities in one write
// transaction.
func (s *Store) SaveCommunities(ctx context.Context, bankID string, u *memory.CommunityUpdate) error {
	if err := memory.CheckCommunityUpdate(u); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		for _, id := range u.Delete {
			if _, err := tx.ExecContext(ctx, `DELETE FROM communities WHERE bank_id = ? AND id = ?`, bankID, id); err != nil {
				return fmt.Errorf("delete community %s: %w", id, err)
			}
		}
		for _, c := range u.Put {
			ms := make([]communityJSON, len(c.Members))
			for i, m := range c.Members {
				ms[i] = communityJSON{m.EntityID, m.Weight}
			}
			members, err := marshalJSON(ms)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO communities (bank_id, id, name, members, size, representatives, summary, sources, weight, created_at, updated_at, summarized_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (bank_id, id) DO UPDATE SET name = excluded.name, members = excluded.members, size = excluded.size,
					representatives = excluded.representatives, summary = excluded.summary, sources = excluded.sources, weight = excluded.weight,
					created_at = excluded.created_at, updated_at = excluded.updated_at, summarized_at = excluded.summarized_at`,
				bankID, c.ID, c.Name, members, len(c.Members), stringsJSON(c.Representatives), c.Summary, stringsJSON(c.Sources), c.Weight,
				c.CreatedAt.UnixMicro(), c.UpdatedAt.UnixMicro(), toMicro(c.SummarizedAt)); err != nil {
				return fmt.Errorf("save community %s: %w", c.ID, err)
			}
		}
		if m := u.Mark; m != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO community_marks (bank_id, seq, refs, pairs, weight, relations, open) VALUES (?, ?, ?, ?, ?, ?, ?)
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
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, name, members, representatives, summary, sources, weight, created_at, updated_at, summarized_at
		FROM communities WHERE bank_id = ? ORDER BY size DESC, id`, bankID)
	if err != nil {
		return nil, fmt.Errorf("list communities: %w", err)
	}
	defer rows.Close()
	out := []*memory.Community{}
	for rows.Next() {
		c := &memory.Community{BankID: bankID}
		var members, reps, sources string
		var created, updated int64
		var summarized sql.NullInt64
		if err := rows.Scan(&c.ID, &c.Name, &members, &reps, &c.Summary, &sources, &c.Weight, &created, &updated, &summarized); err != nil {
			return nil, err
		}
		var ms []communityJSON
		if err := unmarshalJSON(members, &ms); err != nil {
			return nil, fmt.Errorf("community %s: members: %w", c.ID, err)
		}
		c.Members = make([]memory.CommunityMember, len(ms))
		for i, m := range ms {
			c.Members[i] = memory.CommunityMember{EntityID: m.EntityID, Weight: m.Weight}
		}
		if err := unmarshalJSON(reps, &c.Representatives); err != nil {
			return nil, fmt.Errorf("community %s: representatives: %w", c.ID, err)
		}
		if err := unmarshalJSON(sources, &c.Sources); err != nil {
			return nil, fmt.Errorf("community %s: sources: %w", c.ID, err)
		}
		c.CreatedAt, c.UpdatedAt, c.SummarizedAt = fromMicro(created), fromMicro(updated), fromNullMicro(summarized)
		out = append(out, c)
	}
	return out, rows.Err()
}

// CommunityMark implements memory.Communities.
func (s *Store) CommunityMark(ctx context.Context, bankID string) (memory.GraphMark, bool, error) {
	var m memory.GraphMark
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return m, false, err
	}
	err := s.rdb.QueryRowContext(ctx, `SELECT seq, refs, pairs, weight, relations, open FROM community_marks WHERE bank_id = ?`, bankID).
		Scan(&m.Seq, &m.Refs, &m.Pairs, &m.Weight, &m.Relations, &m.Open)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.GraphMark{}, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("community mark: %w", err)
	}
	return m, true, nil
}

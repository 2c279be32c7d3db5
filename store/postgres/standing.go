package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.StandingAnswers = (*Store)(nil)

// PinQuestion implements memory.StandingAnswers.
func (s *Store) PinQuestion(ctx context.Context, bankID string, q *memory.StandingQuestion) error {
	if err := memory.ValidateStandingQuestion(q); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO standing_questions (bank_id, id, question, created_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT (bank_id, id) DO NOTHING`, bankID, q.ID, q.Question, ts(q.CreatedAt))
		if err != nil {
			return fmt.Errorf("pin question %s: %w", q.ID, err)
		}
		if tag.RowsAffected() == 0 {
			return memory.Errorf(memory.ECONFLICT, "question %s is pinned already", q.ID)
		}
		return nil
	})
}

// StandingQuestions implements memory.StandingAnswers.
func (s *Store) StandingQuestions(ctx context.Context, bankID string) ([]*memory.StandingQuestion, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+standingColumns+` FROM standing_questions WHERE bank_id = $1 ORDER BY created_at, id`, bankID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.StandingQuestion, error) { return scanStanding(r, bankID) })
	if out == nil && err == nil {
		out = []*memory.StandingQuestion{}
	}
	return out, err
}

// StandingQuestion implements memory.StandingAnswers: one row by its key.
func (s *Store) StandingQuestion(ctx context.Context, bankID, id string) (*memory.StandingQuestion, error) {
	q, err := scanStanding(s.pool.QueryRow(ctx, `SELECT `+standingColumns+` FROM standing_questions WHERE bank_id = $1 AND id = $2`, bankID, id), bankID)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := requireBank(ctx, s.pool, bankID); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no pinned question %s in bank %q", id, bankID)
	}
	return q, err
}

const standingColumns = `id, question, created_at, answer, memory_ids, answered_at`

// scanStanding reads a row of standingColumns.
func scanStanding(r dbrows.Scanner, bankID string) (*memory.StandingQuestion, error) {
	q := &memory.StandingQuestion{BankID: bankID}
	var created time.Time
	var answered *time.Time
	if err := r.Scan(&q.ID, &q.Question, &created, &q.Answer, &q.MemoryIDs, &answered); err != nil {
		return nil, err
	}
	if len(q.MemoryIDs) == 0 {
		q.MemoryIDs = nil
	}
	q.CreatedAt, q.AnsweredAt = created.UTC(), tm(answered)
	return q, nil
}

// SetStandingAnswer implements memory.StandingAnswers.
func (s *Store) SetStandingAnswer(ctx context.Context, bankID, id, answer string, memoryIDs []string, at time.Time) error {
	if err := memory.ValidateStandingAnswer(answer, memoryIDs, at); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE standing_questions SET answer = $3, memory_ids = $4, answered_at = $5
			WHERE bank_id = $1 AND id = $2`, bankID, id, answer, strs(memoryIDs), ts(at))
		if err != nil {
			return fmt.Errorf("answer question %s: %w", id, err)
		}
		return pinnedRow(tag, bankID, id)
	})
}

// UnpinQuestion implements memory.StandingAnswers.
func (s *Store) UnpinQuestion(ctx context.Context, bankID, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM standing_questions WHERE bank_id = $1 AND id = $2`, bankID, id)
		if err != nil {
			return fmt.Errorf("unpin question %s: %w", id, err)
		}
		return pinnedRow(tag, bankID, id)
	})
}

// pinnedRow is ENOTFOUND unless tag changed a row: the question was
// pinned.
func pinnedRow(tag pgconn.CommandTag, bankID, id string) error {
	if tag.RowsAffected() == 0 {
		return memory.Errorf(memory.ENOTFOUND, "no pinned question %s in bank %q", id, bankID)
	}
	return nil
}

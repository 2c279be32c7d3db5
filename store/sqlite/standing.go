package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.StandingAnswers = (*Store)(nil)

// PinQuestion implements memory.StandingAnswers.
func (s *Store) PinQuestion(ctx context.Context, bankID string, q *memory.StandingQuestion) error {
	if err := memory.ValidateStandingQuestion(q); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO standing_questions (bank_id, id, question, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT (bank_id, id) DO NOTHING`, bankID, q.ID, q.Question, q.CreatedAt.UnixMicro())
		if err != nil {
			return fmt.Errorf("pin question %s: %w", q.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return memory.Errorf(memory.ECONFLICT, "question %s is pinned already", q.ID)
		}
		return nil
	})
}

// StandingQuestions implements memory.StandingAnswers.
func (s *Store) StandingQuestions(ctx context.Context, bankID string) ([]*memory.StandingQuestion, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+standingColumns+` FROM standing_questions WHERE bank_id = ? ORDER BY created_at, id`, bankID)
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
	// Recall asks for the question it was given at every call: the
	// statements are the store's prepared ones.
	q, err := scanStanding(s.stmts.queryRow(ctx, `SELECT `+standingColumns+` FROM standing_questions WHERE bank_id = ? AND id = ?`, bankID, id), bankID)
	if errors.Is(err, sql.ErrNoRows) {
		if err := s.requireBank(ctx, bankID); err != nil {
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
	var created int64
	var ids string
	var answered sql.NullInt64
	if err := r.Scan(&q.ID, &q.Question, &created, &q.Answer, &ids, &answered); err != nil {
		return nil, err
	}
	if err := unmarshalJSON(ids, &q.MemoryIDs); err != nil {
		return nil, fmt.Errorf("standing question %s memory ids: %w", q.ID, err)
	}
	if len(q.MemoryIDs) == 0 {
		q.MemoryIDs = nil
	}
	q.CreatedAt, q.AnsweredAt = fromMicro(created), fromNullMicro(answered)
	return q, nil
}

// SetStandingAnswer implements memory.StandingAnswers.
func (s *Store) SetStandingAnswer(ctx context.Context, bankID, id, answer string, memoryIDs []string, at time.Time) error {
	if err := memory.ValidateStandingAnswer(answer, memoryIDs, at); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE standing_questions SET answer = ?, memory_ids = ?, answered_at = ?
			WHERE bank_id = ? AND id = ?`, answer, stringsJSON(memoryIDs), at.UnixMicro(), bankID, id)
		if err != nil {
			return fmt.Errorf("answer question %s: %w", id, err)
		}
		return pinnedRow(res, bankID, id)
	})
}

// UnpinQuestion implements memory.StandingAnswers.
func (s *Store) UnpinQuestion(ctx context.Context, bankID, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM standing_questions WHERE bank_id = ? AND id = ?`, bankID, id)
		if err != nil {
			return fmt.Errorf("unpin question %s: %w", id, err)
		}
		return pinnedRow(res, bankID, id)
	})
}

// pinnedRow is ENOTFOUND unless res changed a row: the question was pinned.
func pinnedRow(res sql.Result, bankID, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return memory.Errorf(memory.ENOTFOUND, "no pinned question %s in bank %q", id, bankID)
	}
	return nil
}

// importStanding adds an exported pinned question with its answer; one
// of that id already pinned is ECONFLICT.
func importStanding(ctx context.Context, tx *sql.Tx, bank string, x *memory.ExportStanding) error {
	if err := memory.ValidateExportStanding(x); err != nil {
		return memory.Errorf(memory.EINVALID, "import: %s", memory.ErrorMessage(err))
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO standing_questions (bank_id, `+standingColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		bank, x.ID, x.Question, x.CreatedAt.UnixMicro(), x.Answer, stringsJSON(x.MemoryIDs), toMicro(x.AnsweredAt))
	if isConstraint(err) {
		return memory.Errorf(memory.ECONFLICT, "import: question %s is pinned already", x.ID)
	}
	return err
}

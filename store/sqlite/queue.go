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

// Ingest watermarks, the job queue and streaming sessions: the durable
// state of mnemo's background work (migration 002).

// Watermark implements memory.Store.
func (s *Store) Watermark(ctx context.Context, bankID, source string) (*memory.Watermark, error) {
	w := memory.Watermark{BankID: bankID, Source: source}
	var at int64
	err := s.rdb.QueryRowContext(ctx, `SELECT last_item, last_error, updated_at FROM watermarks WHERE bank_id = ? AND source = ?`, bankID, source).
		Scan(&w.LastItem, &w.LastError, &at)
	if errors.Is(err, sql.ErrNoRows) {
		if err := requireBank(ctx, s.rdb, bankID); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no watermark for source %q", source)
	}
	if err != nil {
		return nil, fmt.Errorf("watermark %s: %w", source, err)
	}
	w.UpdatedAt = fromMicro(at)
	return &w, nil
}

const jobColumns = `bank_id, id, kind, payload, status, attempts, result, error, created_at, updated_at`

func scanJob(r interface{ Scan(...any) error }) (*memory.Job, error) {
	var j memory.Job
	var status string
	var created, updated int64
	if err := r.Scan(&j.BankID, &j.ID, &j.Kind, &j.Payload, &status, &j.Attempts, &j.Result, &j.Error, &created, &updated); err != nil {
		return nil, err
	}
	if len(j.Payload) == 0 {
		j.Payload = nil // a job done dropped it
	}
	j.Status = memory.JobStatus(status)
	j.CreatedAt, j.UpdatedAt = fromMicro(created), fromMicro(updated)
	return &j, nil
}

// EnqueueJob implements memory.Store. It sets j's Status (queued),
// Attempts (0) and UpdatedAt (CreatedAt; now when CreatedAt is zero).
func (s *Store) EnqueueJob(ctx context.Context, j *memory.Job) error {
	if err := j.PrepareEnqueue(s.Now); err != nil {
		return err
	}
	payload := j.Payload
	if payload == nil {
		payload = []byte{} // NOT NULL
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, j.BankID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO jobs (`+jobColumns+`) VALUES (?, ?, ?, ?, ?, 0, NULL, '', ?, ?)`,
			j.BankID, j.ID, j.Kind, payload, string(memory.JobQueued), j.CreatedAt.UnixMicro(), j.UpdatedAt.UnixMicro())
		if isConstraint(err) {
			return memory.Errorf(memory.ECONFLICT, "job %s already exists", j.ID)
		}
		if err != nil {
			return fmt.Errorf("enqueue job %s: %w", j.ID, err)
		}
		return nil
	})
}

// ClaimJob implements memory.Store. A queued job whose UpdatedAt is after
// at is not due yet (a retry waiting out its backoff) and is left alone.
// Due jobs are claimed oldest (CreatedAt) first.
func (s *Store) ClaimJob(ctx context.Context, at time.Time) (*memory.Job, error) {
	none := memory.Errorf(memory.ENOTFOUND, "no job is queued")
	// Workers poll: find out with a read that there is nothing to do, so
	// an idle worker never takes the write lock.
	var one int
	err := s.rdb.QueryRowContext(ctx, `SELECT 1 FROM jobs WHERE status = 'queued' AND updated_at <= ? LIMIT 1`, at.UnixMicro()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, none
	}
	if err != nil {
		return nil, fmt.Errorf("claim job: %w", err)
	}
	var j *memory.Job
	err = s.write(ctx, func(tx *sql.Tx) error {
		// One writer connection and BEGIN IMMEDIATE: no other claim, in
		// this process or another, runs between the select and the update.
		row := tx.QueryRowContext(ctx, `UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = ?1
			WHERE rowid = (SELECT rowid FROM jobs WHERE status = 'queued' AND updated_at <= ?1 ORDER BY created_at, bank_id, id LIMIT 1)
			RETURNING `+jobColumns, at.UnixMicro())
		var err error
		j, err = scanJob(row)
		if errors.Is(err, sql.ErrNoRows) {
			return none
		}
		return err
	})
	if err != nil {
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			return nil, err
		}
		return nil, fmt.Errorf("claim job: %w", err)
	}
	return j, nil
}

// FinishJob implements memory.Store. Status must be done, failed or
// queued; a job queued again with an UpdatedAt in the future waits until
// then before it can be claimed again.
func (s *Store) FinishJob(ctx context.Context, j *memory.Job) error {
	if err := j.PrepareFinish(s.Now); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE jobs SET status = ?1, payload = CASE WHEN ?1 = 'done' THEN x'' ELSE payload END,
			result = ?2, error = ?3, updated_at = ?4 WHERE bank_id = ?5 AND id = ?6 AND status = 'running' AND attempts = ?7`,
			string(j.Status), j.Result, j.Error, j.UpdatedAt.UnixMicro(), j.BankID, j.ID, j.Attempts)
		if err != nil {
			return fmt.Errorf("finish job %s: %w", j.ID, err)
		}
		return claimHeld(ctx, tx, r, j)
	})
}

// RenewJob implements memory.Store: one conditional update, the claim
// checked by the database.
func (s *Store) RenewJob(ctx context.Context, j *memory.Job, at time.Time) error {
	at = memory.StoreTime(at)
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE jobs SET updated_at = ? WHERE bank_id = ? AND id = ? AND status = 'running' AND attempts = ?`,
			at.UnixMicro(), j.BankID, j.ID, j.Attempts)
		if err != nil {
			return fmt.Errorf("renew job %s: %w", j.ID, err)
		}
		return claimHeld(ctx, tx, r, j)
	})
	if err == nil {
		j.UpdatedAt = at
	}
	return err
}

// claimHeld turns an update of job j under its claim that changed no row
// into why: ENOTFOUND if there is no such job, else ECONFLICT (the claim
// was lost).
func claimHeld(ctx context.Context, tx *sql.Tx, r sql.Result, j *memory.Job) error {
	if n, err := r.RowsAffected(); err != nil || n > 0 {
		return err
	}
	var status string
	var attempts int
	err := tx.QueryRowContext(ctx, `SELECT status, attempts FROM jobs WHERE bank_id = ? AND id = ?`, j.BankID, j.ID).Scan(&status, &attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Errorf(memory.ENOTFOUND, "job %s not found in bank %q", j.ID, j.BankID)
	}
	if err != nil {
		return err
	}
	return memory.LostClaim(j, memory.JobStatus(status), attempts)
}

// Job implements memory.Store.
func (s *Store) Job(ctx context.Context, bankID, id string) (*memory.Job, error) {
	j, err := scanJob(s.rdb.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE bank_id = ? AND id = ?`, bankID, id))
	if errors.Is(err, sql.ErrNoRows) {
		if err := requireBank(ctx, s.rdb, bankID); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "job %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	return j, nil
}

// Jobs implements memory.Store. Jobs created at the same time come
// newest id first.
func (s *Store) Jobs(ctx context.Context, bankID string, limit int) ([]*memory.Job, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1 // no limit
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE bank_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, bankID, limit)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	defer rows.Close()
	return dbrows.Collect(rows, scanJob)
}

// RequeueJobs implements memory.Store. A requeued job keeps its attempts
// and is due at once.
func (s *Store) RequeueJobs(ctx context.Context, staleBefore time.Time) (int, error) {
	var one int
	err := s.rdb.QueryRowContext(ctx, `SELECT 1 FROM jobs WHERE status = 'running' AND updated_at < ? LIMIT 1`, staleBefore.UnixMicro()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", err)
	}
	var n int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE jobs SET status = 'queued' WHERE status = 'running' AND updated_at < ?`, staleBefore.UnixMicro())
		if err != nil {
			return err
		}
		n, err = r.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", err)
	}
	return int(n), nil
}

// AppendSession implements memory.Store. It assigns each message its Seq
// (in msgs too) and records its arrival at the store's clock, which
// SessionState.LastAt reports. With no messages it only reads the state.
func (s *Store) AppendSession(ctx context.Context, bankID, session string, msgs []memory.SessionMessage) (*memory.SessionState, error) {
	if err := memory.ValidateAppend(session, msgs); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		if err := requireBank(ctx, s.rdb, bankID); err != nil {
			return nil, err
		}
		return sessionState(ctx, s.rdb, bankID, session)
	}
	received := s.Now().UnixMicro()
	var st *memory.SessionState
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		var next int64
		err := tx.QueryRowContext(ctx, `INSERT INTO sessions (bank_id, session, next_seq) VALUES (?, ?, 1)
			ON CONFLICT (bank_id, session) DO UPDATE SET next_seq = next_seq RETURNING next_seq`, bankID, session).Scan(&next)
		if err != nil {
			return err
		}
		next = memory.NumberMessages(msgs, next)
		rows := make([][]any, len(msgs))
		for i, m := range msgs {
			rows[i] = []any{bankID, session, m.Seq, string(m.Role), m.ID, m.Speaker, m.Text, toMicro(m.Time), received}
		}
		if err := bulkInsert(ctx, tx, `INSERT INTO session_messages (bank_id, session, seq, role, message_id, speaker, text, at, received)`, ``, rows); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET next_seq = ? WHERE bank_id = ? AND session = ?`, next, bankID, session); err != nil {
			return err
		}
		st, err = sessionState(ctx, tx, bankID, session)
		return err
	})
	if err != nil {
		if memory.ErrorCode(err) != memory.EINTERNAL {
			return nil, err
		}
		return nil, fmt.Errorf("append to session %s: %w", session, err)
	}
	return st, nil
}

const sessionStateColumns = `session, COUNT(*), SUM(role = 'user'), MIN(seq), MAX(seq), MAX(received)`

func scanSessionState(r interface{ Scan(...any) error }) (*memory.SessionState, error) {
	var st memory.SessionState
	var last int64
	if err := r.Scan(&st.Session, &st.Messages, &st.UserMessages, &st.FirstSeq, &st.LastSeq, &last); err != nil {
		return nil, err
	}
	st.LastAt = fromMicro(last)
	return &st, nil
}

// sessionState summarises one session's buffer; an empty buffer gives a
// zero state.
func sessionState(ctx context.Context, q queryer, bankID, session string) (*memory.SessionState, error) {
	st, err := scanSessionState(q.QueryRowContext(ctx, `SELECT `+sessionStateColumns+` FROM session_messages
		WHERE bank_id = ? AND session = ? GROUP BY session`, bankID, session))
	if errors.Is(err, sql.ErrNoRows) {
		return &memory.SessionState{Session: session}, nil
	}
	return st, err
}

// Session implements memory.Store. An unknown session has no messages.
func (s *Store) Session(ctx context.Context, bankID, session string) ([]memory.SessionMessage, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT seq, role, message_id, speaker, text, at FROM session_messages
		WHERE bank_id = ? AND session = ? ORDER BY seq`, bankID, session)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", session, err)
	}
	defer rows.Close()
	var out []memory.SessionMessage
	for rows.Next() {
		var m memory.SessionMessage
		var role string
		var at sql.NullInt64
		if err := rows.Scan(&m.Seq, &role, &m.ID, &m.Speaker, &m.Text, &at); err != nil {
			return nil, err
		}
		m.Role, m.Time = memory.Role(role), fromNullMicro(at)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Sessions implements memory.Store, ordered by session id.
func (s *Store) Sessions(ctx context.Context, bankID string) ([]memory.SessionState, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+sessionStateColumns+` FROM session_messages
		WHERE bank_id = ? GROUP BY session ORDER BY session`, bankID)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	defer rows.Close()
	var out []memory.SessionState
	for rows.Next() {
		st, err := scanSessionState(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *st)
	}
	return out, rows.Err()
}

// drainSession removes a session's buffered messages up to d.UpTo inside
// a write's transaction (memory.WriteBatch.DrainSession).
func drainSession(ctx context.Context, tx *sql.Tx, bankID string, d *memory.SessionDrain) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_messages WHERE bank_id = ? AND session = ? AND seq <= ?`, bankID, d.Session, d.UpTo); err != nil {
		return fmt.Errorf("drain session %s: %w", d.Session, err)
	}
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// Ingest watermarks, the job queue and streaming sessions: the durable
// state of mnemo's background work (migration 002).

// Watermark implements memory.Store.
func (s *Store) Watermark(ctx context.Context, bankID, source string) (*memory.Watermark, error) {
	w := memory.Watermark{BankID: bankID, Source: source}
	var at time.Time
	err := s.pool.QueryRow(ctx, `SELECT last_item, last_error, updated_at FROM watermarks WHERE bank_id = $1 AND source = $2`, bankID, source).
		Scan(&w.LastItem, &w.LastError, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := requireBank(ctx, s.pool, bankID); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no watermark for source %q", source)
	}
	if err != nil {
		return nil, fmt.Errorf("watermark %s: %w", source, err)
	}
	w.UpdatedAt = at.UTC()
	return &w, nil
}

const jobColumns = `bank_id, id, kind, payload, status, attempts, result, error, created_at, updated_at`

func scanJob(r dbrows.Scanner) (*memory.Job, error) {
	var j memory.Job
	var status string
	var created, updated time.Time
	if err := r.Scan(&j.BankID, &j.ID, &j.Kind, &j.Payload, &status, &j.Attempts, &j.Result, &j.Error, &created, &updated); err != nil {
		return nil, err
	}
	if len(j.Payload) == 0 {
		j.Payload = nil // a job done dropped it
	}
	j.Status = memory.JobStatus(status)
	j.CreatedAt, j.UpdatedAt = created.UTC(), updated.UTC()
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
	_, err := s.pool.Exec(ctx, `INSERT INTO jobs (`+jobColumns+`) VALUES ($1, $2, $3, $4, 'queued', 0, NULL, '', $5, $5)`,
		j.BankID, j.ID, j.Kind, payload, ts(j.CreatedAt))
	switch {
	case isCode(err, "23503"):
		return memory.UnknownBank(j.BankID)
	case isCode(err, "23505"):
		return memory.Errorf(memory.ECONFLICT, "job %s already exists", j.ID)
	case err != nil:
		return fmt.Errorf("enqueue job %s: %w", j.ID, err)
	}
	return nil
}

// ClaimJob implements memory.Store. Due jobs are claimed oldest
// (CreatedAt) first; a job another caller is claiming at the same moment
// is skipped (SKIP LOCKED), so two callers never get the same job.
func (s *Store) ClaimJob(ctx context.Context, at time.Time) (*memory.Job, error) {
	j, err := scanJob(s.pool.QueryRow(ctx, `UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, updated_at = $1
		FROM (SELECT bank_id, id FROM jobs WHERE status = 'queued' AND updated_at <= $1
			ORDER BY created_at, bank_id, id LIMIT 1 FOR UPDATE SKIP LOCKED) c
		WHERE j.bank_id = c.bank_id AND j.id = c.id
		RETURNING j.bank_id, j.id, j.kind, j.payload, j.status, j.attempts, j.result, j.error, j.created_at, j.updated_at`, ts(at)))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.Errorf(memory.ENOTFOUND, "no job is queued")
	}
	if err != nil {
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
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET status = $3, payload = CASE WHEN $3 = 'done' THEN ''::bytea ELSE payload END,
		result = $4, error = $5, updated_at = $6 WHERE bank_id = $1 AND id = $2 AND status = 'running' AND attempts = $7`,
		j.BankID, j.ID, string(j.Status), j.Result, j.Error, ts(j.UpdatedAt), j.Attempts)
	if err != nil {
		return fmt.Errorf("finish job %s: %w", j.ID, err)
	}
	return s.claimHeld(ctx, tag.RowsAffected(), j)
}

// RenewJob implements memory.Store: one conditional update, the claim
// checked by the database.
func (s *Store) RenewJob(ctx context.Context, j *memory.Job, at time.Time) error {
	at = memory.StoreTime(at)
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET updated_at = $3 WHERE bank_id = $1 AND id = $2 AND status = 'running' AND attempts = $4`,
		j.BankID, j.ID, at, j.Attempts)
	if err != nil {
		return fmt.Errorf("renew job %s: %w", j.ID, err)
	}
	if err := s.claimHeld(ctx, tag.RowsAffected(), j); err != nil {
		return err
	}
	j.UpdatedAt = at
	return nil
}

// claimHeld turns an update of job j under its claim that changed no row
// (rows 0) into why: ENOTFOUND if there is no such job, else ECONFLICT
// (the claim was lost).
func (s *Store) claimHeld(ctx context.Context, rows int64, j *memory.Job) error {
	if rows > 0 {
		return nil
	}
	var status string
	var attempts int
	err := s.pool.QueryRow(ctx, `SELECT status, attempts FROM jobs WHERE bank_id = $1 AND id = $2`, j.BankID, j.ID).Scan(&status, &attempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return memory.Errorf(memory.ENOTFOUND, "job %s not found in bank %q", j.ID, j.BankID)
	}
	if err != nil {
		return err
	}
	return memory.LostClaim(j, memory.JobStatus(status), attempts)
}

// Job implements memory.Store.
func (s *Store) Job(ctx context.Context, bankID, id string) (*memory.Job, error) {
	j, err := scanJob(s.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE bank_id = $1 AND id = $2`, bankID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		if err := requireBank(ctx, s.pool, bankID); err != nil {
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
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE bank_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, bankID, lim)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	defer rows.Close()
	return dbrows.Collect(rows, scanJob)
}

// RequeueJobs implements memory.Store. A requeued job keeps its attempts
// and is due at once.
func (s *Store) RequeueJobs(ctx context.Context, staleBefore time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET status = 'queued' WHERE status = 'running' AND updated_at < $1`, ts(staleBefore))
	if err != nil {
		return 0, fmt.Errorf("requeue jobs: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// AppendSession implements memory.Store. It assigns each message its Seq
// (in msgs too) and records its arrival at the store's clock, which
// SessionState.LastAt reports. With no messages it only reads the state.
// The session's row lock (its next_seq) orders concurrent appends.
func (s *Store) AppendSession(ctx context.Context, bankID, session string, msgs []memory.SessionMessage) (*memory.SessionState, error) {
	if err := memory.ValidateAppend(session, msgs); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		if err := requireBank(ctx, s.pool, bankID); err != nil {
			return nil, err
		}
		return sessionState(ctx, s.pool, bankID, session)
	}
	received := s.Now().UTC().Truncate(time.Microsecond)
	var st *memory.SessionState
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		var next int64
		err := tx.QueryRow(ctx, `INSERT INTO sessions AS s (bank_id, session, next_seq) VALUES ($1, $2, 1)
			ON CONFLICT (bank_id, session) DO UPDATE SET next_seq = s.next_seq RETURNING next_seq`, bankID, session).Scan(&next)
		if err != nil {
			return err
		}
		next = memory.NumberMessages(msgs, next)
		rows := make([][]any, len(msgs))
		for i, m := range msgs {
			rows[i] = []any{bankID, session, m.Seq, string(m.Role), m.ID, m.Speaker, m.Text, ts(m.Time), received}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"session_messages"},
			[]string{"bank_id", "session", "seq", "role", "message_id", "speaker", "text", "at", "received"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE sessions SET next_seq = $3 WHERE bank_id = $1 AND session = $2`, bankID, session, next); err != nil {
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

const sessionStateColumns = `session, count(*), count(*) FILTER (WHERE role = 'user'), min(seq), max(seq), max(received)`

func scanSessionState(r dbrows.Scanner) (*memory.SessionState, error) {
	var st memory.SessionState
	var last time.Time
	if err := r.Scan(&st.Session, &st.Messages, &st.UserMessages, &st.FirstSeq, &st.LastSeq, &last); err != nil {
		return nil, err
	}
	st.LastAt = last.UTC()
	return &st, nil
}

// sessionState summarises one session's buffer; an empty buffer gives a
// zero state.
func sessionState(ctx context.Context, q querier, bankID, session string) (*memory.SessionState, error) {
	st, err := scanSessionState(q.QueryRow(ctx, `SELECT `+sessionStateColumns+` FROM session_messages
		WHERE bank_id = $1 AND session = $2 GROUP BY session`, bankID, session))
	if errors.Is(err, pgx.ErrNoRows) {
		return &memory.SessionState{Session: session}, nil
	}
	return st, err
}

// Session implements memory.Store. An unknown session has no messages.
func (s *Store) Session(ctx context.Context, bankID, session string) ([]memory.SessionMessage, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, role, message_id, speaker, text, at FROM session_messages
		WHERE bank_id = $1 AND session = $2 ORDER BY seq`, bankID, session)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", session, err)
	}
	defer rows.Close()
	var out []memory.SessionMessage
	for rows.Next() {
		var m memory.SessionMessage
		var role string
		var at *time.Time
		if err := rows.Scan(&m.Seq, &role, &m.ID, &m.Speaker, &m.Text, &at); err != nil {
			return nil, err
		}
		m.Role, m.Time = memory.Role(role), tm(at)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Sessions implements memory.Store, ordered by session id.
func (s *Store) Sessions(ctx context.Context, bankID string) ([]memory.SessionState, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+sessionStateColumns+` FROM session_messages
		WHERE bank_id = $1 GROUP BY session ORDER BY session`, bankID)
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

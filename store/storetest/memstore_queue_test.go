package storetest

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The memStore's watermarks, job queue and session buffers. Jobs and
// sessions live in their bank (memBank.jobs, memBank.sessions), so they
// go with it when it is deleted and a write's DrainSession applies to the
// bank's copy like the rest of the batch.

// memSession is one session's buffer and its next seq, kept after the
// buffer drains so that seqs are never reused. Stored values are never
// changed in place: an update stores a changed copy.
type memSession struct {
	next     int64
	msgs     []memory.SessionMessage
	received []time.Time // arrival of msgs[i]
}

func (s *memStore) Watermark(_ context.Context, bankID, source string) (*memory.Watermark, error) {
	return with(s, bankID, func(b *memBank) (*memory.Watermark, error) {
		w, ok := b.watermarks[source]
		if !ok {
			return nil, memory.Errorf(memory.ENOTFOUND, "no watermark for source %q", source)
		}
		return &w, nil
	})
}

func cloneJob(j *memory.Job) *memory.Job {
	c := *j
	c.Payload, c.Result = slices.Clone(j.Payload), slices.Clone(j.Result)
	return &c
}

func (s *memStore) EnqueueJob(_ context.Context, j *memory.Job) error {
	if j.ID == "" || j.BankID == "" || j.Kind == "" {
		return memory.Errorf(memory.EINVALID, "job: id, bank and kind are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(j.BankID)
	if err != nil {
		return err
	}
	if _, ok := b.jobs[j.ID]; ok {
		return memory.Errorf(memory.ECONFLICT, "job %s exists", j.ID)
	}
	if j.CreatedAt.IsZero() {
		j.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
	}
	j.Status, j.Attempts, j.UpdatedAt, j.Result, j.Error = memory.JobQueued, 0, j.CreatedAt, nil, ""
	if b.jobs == nil {
		b.jobs = map[string]*memory.Job{}
	}
	b.jobs[j.ID] = cloneJob(j)
	return nil
}

func (s *memStore) ClaimJob(_ context.Context, at time.Time) (*memory.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next *memory.Job
	for _, b := range s.banks {
		for _, j := range b.jobs {
			if j.Status != memory.JobQueued || j.UpdatedAt.After(at) {
				continue
			}
			if next == nil || cmp.Or(j.CreatedAt.Compare(next.CreatedAt), cmp.Compare(j.BankID, next.BankID), cmp.Compare(j.ID, next.ID)) < 0 {
				next = j
			}
		}
	}
	if next == nil {
		return nil, memory.Errorf(memory.ENOTFOUND, "no job is queued")
	}
	c := cloneJob(next)
	c.Status, c.UpdatedAt = memory.JobRunning, at
	c.Attempts++
	s.banks[c.BankID].jobs[c.ID] = c
	return cloneJob(c), nil
}

func (s *memStore) FinishJob(_ context.Context, j *memory.Job) error {
	switch j.Status {
	case memory.JobDone, memory.JobFailed, memory.JobQueued:
	default:
		return memory.Errorf(memory.EINVALID, "finish job %s: status %q", j.ID, j.Status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(j.BankID)
	if err != nil {
		return err
	}
	old, ok := b.jobs[j.ID]
	if !ok {
		return memory.Errorf(memory.ENOTFOUND, "job %s not found", j.ID)
	}
	if old.Status != memory.JobRunning || old.Attempts != j.Attempts {
		return memory.LostClaim(j, old.Status, old.Attempts)
	}
	if j.UpdatedAt.IsZero() {
		j.UpdatedAt = time.Now().UTC().Truncate(time.Microsecond)
	}
	c := cloneJob(old)
	c.Status, c.Result, c.Error, c.UpdatedAt = j.Status, slices.Clone(j.Result), j.Error, j.UpdatedAt
	if j.Status == memory.JobDone {
		c.Payload = nil
	}
	b.jobs[j.ID] = c
	return nil
}

func (s *memStore) RenewJob(_ context.Context, j *memory.Job, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.get(j.BankID)
	if err != nil {
		return err
	}
	old, ok := b.jobs[j.ID]
	if !ok {
		return memory.Errorf(memory.ENOTFOUND, "job %s not found", j.ID)
	}
	if old.Status != memory.JobRunning || old.Attempts != j.Attempts {
		return memory.LostClaim(j, old.Status, old.Attempts)
	}
	c := cloneJob(old)
	c.UpdatedAt = memory.StoreTime(at)
	b.jobs[j.ID] = c
	j.UpdatedAt = c.UpdatedAt
	return nil
}

func (s *memStore) Job(_ context.Context, bankID, id string) (*memory.Job, error) {
	return with(s, bankID, func(b *memBank) (*memory.Job, error) {
		j, ok := b.jobs[id]
		if !ok {
			return nil, memory.Errorf(memory.ENOTFOUND, "job %s not found", id)
		}
		return cloneJob(j), nil
	})
}

func (s *memStore) Jobs(_ context.Context, bankID string, limit int) ([]*memory.Job, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.Job, error) {
		var out []*memory.Job
		for _, j := range b.jobs {
			out = append(out, cloneJob(j))
		}
		slices.SortFunc(out, func(x, y *memory.Job) int {
			return cmp.Or(y.CreatedAt.Compare(x.CreatedAt), cmp.Compare(y.ID, x.ID))
		})
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		return out, nil
	})
}

func (s *memStore) RequeueJobs(_ context.Context, staleBefore time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, b := range s.banks {
		for id, j := range b.jobs {
			if j.Status == memory.JobRunning && j.UpdatedAt.Before(staleBefore) {
				c := cloneJob(j)
				c.Status = memory.JobQueued
				b.jobs[id] = c
				n++
			}
		}
	}
	return n, nil
}

// state summarises a session's buffer.
func (m *memSession) state(session string) *memory.SessionState {
	st := &memory.SessionState{Session: session}
	if m == nil || len(m.msgs) == 0 {
		return st
	}
	st.Messages = len(m.msgs)
	st.FirstSeq, st.LastSeq = m.msgs[0].Seq, m.msgs[len(m.msgs)-1].Seq
	for i, x := range m.msgs {
		if x.Role == memory.RoleUser {
			st.UserMessages++
		}
		if m.received[i].After(st.LastAt) {
			st.LastAt = m.received[i]
		}
	}
	return st
}

func (s *memStore) AppendSession(_ context.Context, bankID, session string, msgs []memory.SessionMessage) (*memory.SessionState, error) {
	if session == "" {
		return nil, memory.Errorf(memory.EINVALID, "session: a session id is required")
	}
	for i, m := range msgs {
		if err := memory.ValidateSessionMessage(m); err != nil {
			return nil, memory.Errorf(memory.EINVALID, "session message %d: %s", i+1, memory.ErrorMessage(err))
		}
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	return with(s, bankID, func(b *memBank) (*memory.SessionState, error) {
		old := b.sessions[session]
		if len(msgs) == 0 {
			return old.state(session), nil
		}
		c := &memSession{next: 1}
		if old != nil {
			c = &memSession{next: old.next, msgs: slices.Clone(old.msgs), received: slices.Clone(old.received)}
		}
		for i := range msgs {
			msgs[i].Seq = c.next
			c.next++
			c.msgs = append(c.msgs, msgs[i])
			c.received = append(c.received, now)
		}
		if b.sessions == nil {
			b.sessions = map[string]*memSession{}
		}
		b.sessions[session] = c
		return c.state(session), nil
	})
}

func (s *memStore) Session(_ context.Context, bankID, session string) ([]memory.SessionMessage, error) {
	return with(s, bankID, func(b *memBank) ([]memory.SessionMessage, error) {
		if m := b.sessions[session]; m != nil {
			return slices.Clone(m.msgs), nil
		}
		return nil, nil
	})
}

func (s *memStore) Sessions(_ context.Context, bankID string) ([]memory.SessionState, error) {
	return with(s, bankID, func(b *memBank) ([]memory.SessionState, error) {
		var out []memory.SessionState
		for _, id := range slices.Sorted(maps.Keys(b.sessions)) {
			if st := b.sessions[id].state(id); st.Messages > 0 {
				out = append(out, *st)
			}
		}
		return out, nil
	})
}

// drainSession removes a session's messages up to d.UpTo (apply's
// DrainSession, on the bank's copy).
func (b *memBank) drainSession(d *memory.SessionDrain) error {
	if d.Session == "" {
		return memory.Errorf(memory.EINVALID, "drain session: a session id is required")
	}
	old := b.sessions[d.Session]
	if old == nil {
		return nil
	}
	c := &memSession{next: old.next}
	for i, m := range old.msgs {
		if m.Seq > d.UpTo {
			c.msgs = append(c.msgs, m)
			c.received = append(c.received, old.received[i])
		}
	}
	b.sessions[d.Session] = c
	return nil
}

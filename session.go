package mnemo

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
)

// Defaults of streaming sessions (seed 001: extraction "fires every 10 user
// messages or after 5 minutes of idle time").
const (
	// DefaultSessionUserMessages is how many buffered user messages make
	// a session extract (Config.SessionUserMessages).
	DefaultSessionUserMessages = 10
	// DefaultSessionIdle is how long a session's buffer waits for more
	// messages before it is extracted anyway (Config.SessionIdle).
	DefaultSessionIdle = 5 * time.Minute
	// MaxSessionIDBytes bounds a session id.
	MaxSessionIDBytes = 256
)

// SessionResult reports an append to a streaming session or a flush of
// it: the session's buffer afterwards and, when buffered messages were
// extracted, what that retained.
type SessionResult struct {
	// State is the session's buffer after the call.
	State memory.SessionState
	// Retained holds one result per document the extraction wrote (one,
	// unless the buffer was larger than memory.MaxContentBytes), in order.
	Retained []*memory.RetainResult
	// Dropped counts buffered messages the extraction found nothing to
	// remember in: they were removed without a document.
	Dropped int
	// ExtractError, set by AppendMessage only, is why the extraction the
	// append triggered failed. The message was appended and everything
	// stays buffered; the next trigger tries again.
	ExtractError string
}

// sessionBuffer turns streamed chat messages into retained documents:
// AppendMessage extracts when enough user messages are buffered, and a
// background loop (background.go) runs tick to extract the sessions that
// went idle.
type sessionBuffer struct {
	e     *Engine
	users int           // user messages that trigger extraction; 0: never
	idle  time.Duration // < 0: no idle trigger
	every time.Duration // how often the idle trigger looks

	// locks serialise the extractions of one session (striped by a hash
	// of bank and session): two never read the same buffer.
	locks [64]sync.Mutex
}

func newSessionBuffer(e *Engine, cfg Config) *sessionBuffer {
	b := &sessionBuffer{e: e, users: cfg.SessionUserMessages, idle: cfg.SessionIdle}
	switch {
	case b.users == 0:
		b.users = DefaultSessionUserMessages
	case b.users < 0:
		b.users = 0
	}
	if b.idle == 0 {
		b.idle = DefaultSessionIdle
	}
	// Look five times per idle period (1 s to 1 min): a session is
	// extracted at most a fifth of the idle time late.
	b.every = min(max(b.idle/5, time.Second), time.Minute)
	return b
}

// tick extracts every session, of every bank, whose newest message
// arrived at least the idle time ago, and returns how many it extracted.
// It goes on past a session that fails and returns the errors joined.
func (b *sessionBuffer) tick(ctx context.Context) (int, error) {
	if b.idle < 0 {
		return 0, nil
	}
	banks, err := b.e.store.Banks(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, bank := range banks {
		states, err := b.e.store.Sessions(ctx, bank.ID)
		if err != nil {
			if memory.ErrorCode(err) != memory.ENOTFOUND { // deleted meanwhile
				errs = append(errs, fmt.Errorf("bank %s: %w", bank.ID, err))
			}
			continue
		}
		cutoff := b.e.now().Add(-b.idle)
		for _, st := range states {
			if st.Messages == 0 || st.LastAt.After(cutoff) {
				continue
			}
			if _, err := b.flush(ctx, bank.ID, st.Session, nil); err != nil {
				errs = append(errs, fmt.Errorf("bank %s session %s: %w", bank.ID, st.Session, err))
				continue
			}
			n++
		}
		if ctx.Err() != nil {
			break
		}
	}
	return n, errors.Join(errs...)
}

func (b *sessionBuffer) lock(bank, session string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(bank))
	h.Write([]byte{0})
	h.Write([]byte(session))
	return &b.locks[h.Sum32()%uint32(len(b.locks))]
}

// flush extracts a session's buffered messages into retained chat
// documents, each written with the drain of its messages in one
// transaction. When ready is set it is asked first, under the session's
// lock, whether the buffer (as read then) is still to be extracted.
func (b *sessionBuffer) flush(ctx context.Context, bank, session string, ready func([]memory.SessionMessage) bool) (*SessionResult, error) {
	mu := b.lock(bank, session)
	mu.Lock()
	defer mu.Unlock()
	msgs, err := b.e.store.Session(ctx, bank, session)
	if err != nil {
		return nil, err
	}
	out := &SessionResult{}
	if len(msgs) > 0 && (ready == nil || ready(msgs)) {
		for _, part := range splitSession(msgs) {
			if err := b.extract(ctx, bank, session, part, out); err != nil {
				return nil, err
			}
		}
	}
	st, err := b.e.store.AppendSession(ctx, bank, session, nil)
	if err != nil {
		return nil, err
	}
	out.State = *st
	return out, nil
}

// splitSession cuts a buffer into runs of messages that each fit in one
// document (memory.MaxContentBytes, counted as retain.Validate counts).
func splitSession(msgs []memory.SessionMessage) [][]memory.SessionMessage {
	var parts [][]memory.SessionMessage
	start, size := 0, 0
	for i, m := range msgs {
		n := len(m.Text) + len(speaker(m))
		if i > start && size+n > memory.MaxContentBytes {
			parts = append(parts, msgs[start:i])
			start, size = i, 0
		}
		size += n
	}
	return append(parts, msgs[start:])
}

// speaker is who said a buffered message: its speaker, else its role.
func speaker(m memory.SessionMessage) string {
	if m.Speaker != "" {
		return m.Speaker
	}
	return string(m.Role)
}

// extract retains one run of a session's messages as a chat document (item
// "<session>:<first seq>-<last seq>") and drains them with it. A run the
// extractor finds nothing to remember in is drained alone and counted as
// dropped; one already retained (a duplicate) is drained alone too.
func (b *sessionBuffer) extract(ctx context.Context, bank, session string, msgs []memory.SessionMessage, out *SessionResult) error {
	first, last := msgs[0].Seq, msgs[len(msgs)-1].Seq
	req := memory.RetainRequest{
		BankID: bank, Source: memory.SourceChat, ItemID: fmt.Sprintf("%s:%d-%d", session, first, last),
		At: msgs[0].Time, Metadata: map[string]string{"session": session},
	}
	for _, m := range msgs {
		msg := m.Message
		msg.Speaker = speaker(m)
		req.Messages = append(req.Messages, msg)
	}
	along := retain.Along{DrainSession: &memory.SessionDrain{Session: session, UpTo: last}}
	res, err := b.e.retain.RetainWith(ctx, req, along)
	if err == nil {
		b.e.emitRetained(ctx, bank, res)
	}
	if memory.ErrorCode(err) == memory.EINVALID {
		// The messages were valid when appended: the extractor found no
		// fact in them ("ok", "thanks"). Retain refuses such an item too.
		b.e.log.Info("session messages hold nothing to remember", "bank", bank, "session", session, "seqs", req.ItemID, "reason", memory.ErrorMessage(err))
		if err := b.e.retain.MarkAlong(ctx, bank, along); err != nil {
			return err
		}
		out.Dropped += len(msgs)
		return nil
	}
	if err != nil {
		return err
	}
	out.Retained = append(out.Retained, res)
	return nil
}

// validSession checks a session id: non-empty valid UTF-8 of at most
// MaxSessionIDBytes.
func validSession(session string) error {
	switch {
	case session == "":
		return memory.Errorf(memory.EINVALID, "session id is empty")
	case !utf8.ValidString(session):
		return memory.Errorf(memory.EINVALID, "session id is not valid UTF-8")
	case len(session) > MaxSessionIDBytes:
		return memory.Errorf(memory.EINVALID, "session id is %d bytes; the limit is %d", len(session), MaxSessionIDBytes)
	}
	return nil
}

// AppendMessage adds one message of a streaming chat session to the
// session's durable buffer (bank empty: the default bank, created on first
// use). When the buffer then holds Config.SessionUserMessages user
// messages (seed 001: 10), they are extracted at once: the buffered
// messages become one retained chat document (source "chat", item
// "<session>:<first seq>-<last seq>"), written in the same transaction
// that removes them from the buffer. Sessions that go idle are extracted
// by the background trigger (Config.SessionIdle), and FlushSession forces
// it.
//
// role is memory.RoleUser or memory.RoleAssistant; a message with no
// Speaker is attributed to its role, one with no Time gets the time it
// arrived. Bad input (empty or invalid UTF-8 text, more than
// memory.MaxContentBytes, a bad session id or role) is EINVALID and an
// unknown bank ENOTFOUND, with nothing buffered. Once the message is
// buffered AppendMessage succeeds: a failed extraction is reported in
// SessionResult.ExtractError, logged, and tried again by the next trigger.
func (e *Engine) AppendMessage(ctx context.Context, bank, session string, role memory.Role, msg memory.Message) (*SessionResult, error) {
	bank = defaultBank(bank)
	if err := validSession(session); err != nil {
		return nil, err
	}
	if err := memory.ValidateSessionMessage(memory.SessionMessage{Role: role, Message: msg}); err != nil {
		return nil, err
	}
	if err := retain.Validate(&memory.RetainRequest{BankID: bank, Messages: []memory.Message{msg}}); err != nil {
		return nil, err
	}
	if err := e.requireBank(ctx, bank); err != nil {
		return nil, err
	}
	if msg.Time.IsZero() {
		msg.Time = e.now()
	}
	msg.Time = msg.Time.UTC().Truncate(time.Microsecond) // as the store keeps it
	masked := memory.RetainRequest{BankID: bank, Messages: []memory.Message{msg}}
	e.redact(ctx, &masked)
	msg = masked.Messages[0]
	st, err := e.store.AppendSession(ctx, bank, session, []memory.SessionMessage{{Role: role, Message: msg}})
	if err != nil {
		return nil, err
	}
	s := e.sessions
	if s.users == 0 || st.UserMessages < s.users {
		return &SessionResult{State: *st}, nil
	}
	// Another append may have extracted the buffer meanwhile: check again
	// under the session's lock.
	res, err := s.flush(ctx, bank, session, func(msgs []memory.SessionMessage) bool {
		users := 0
		for _, m := range msgs {
			if m.Role == memory.RoleUser {
				users++
			}
		}
		return users >= s.users
	})
	if err != nil {
		e.log.Warn("extract session", "bank", bank, "session", session, "err", err)
		return &SessionResult{State: *st, ExtractError: jobError(err)}, nil
	}
	return res, nil
}

// FlushSession extracts a session's buffered messages now, whatever the
// triggers say (see AppendMessage). A session with nothing buffered is
// left alone: the result then retains nothing. bank empty means the
// default bank.
func (e *Engine) FlushSession(ctx context.Context, bank, session string) (*SessionResult, error) {
	bank = defaultBank(bank)
	if err := validSession(session); err != nil {
		return nil, err
	}
	return e.sessions.flush(ctx, bank, session, nil)
}

// Sessions returns the state of every session of a bank (the default bank
// when bank is empty) with buffered messages, ordered by session id.
func (e *Engine) Sessions(ctx context.Context, bank string) ([]memory.SessionState, error) {
	bank = defaultBank(bank)
	return e.store.Sessions(ctx, bank)
}

// FlushIdleSessions extracts every session, of every bank, whose newest
// message arrived at least Config.SessionIdle ago — what the background
// idle trigger does — and returns how many it extracted. With the idle
// trigger disabled (negative SessionIdle) it does nothing. A session that
// fails is skipped; the errors are returned joined after the others ran.
func (e *Engine) FlushIdleSessions(ctx context.Context) (int, error) {
	return e.sessions.tick(ctx)
}

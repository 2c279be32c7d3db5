package mnemo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
)

func appendMsg(t *testing.T, e *Engine, bank, session string, role memory.Role, text string) *SessionResult {
	t.Helper()
	res, err := e.AppendMessage(context.Background(), bank, session, role, memory.Message{Text: text})
	if err != nil {
		t.Fatalf("AppendMessage(%s, %s, %q): %v", session, role, text, err)
	}
	if res.ExtractError != "" {
		t.Fatalf("AppendMessage(%s, %s, %q): extraction failed: %s", session, role, text, res.ExtractError)
	}
	return res
}

func buffered(t *testing.T, e *Engine, bank, session string) []memory.SessionMessage {
	t.Helper()
	if bank == "" {
		bank = memory.DefaultBank
	}
	ms, err := e.store.Session(context.Background(), bank, session)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// documentMessages returns the messages a session document holds.
func documentMessages(t *testing.T, e *Engine, bank, item string) []memory.Message {
	t.Helper()
	d, err := e.store.DocumentByItem(context.Background(), bank, memory.SourceChat, item)
	if err != nil {
		t.Fatalf("DocumentByItem(chat, %s): %v", item, err)
	}
	if d.Metadata["session"] == "" {
		t.Errorf("document %s: no session in metadata %v", item, d.Metadata)
	}
	var ms []memory.Message
	if err := json.Unmarshal([]byte(d.Content), &ms); err != nil {
		t.Fatalf("document %s content %q: %v", item, d.Content, err)
	}
	return ms
}

func texts(ms []memory.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Speaker+": "+m.Text)
	}
	return out
}

func TestEngine_AppendMessage(t *testing.T) {
	ctx := context.Background()
	t.Run("ExtractsAtTenUserMessages", func(t *testing.T) {
		clock := testutil.NewClock(t0)
		e := openAt(t, newDBPath(t), clock, noWorkers)
		var want []string
		for i := 1; i < DefaultSessionUserMessages; i++ {
			u := fmt.Sprintf("Caroline visited museum number %d.", i)
			a := fmt.Sprintf("What did you like in museum %d?", i)
			appendMsg(t, e, "", "s1", memory.RoleUser, u)
			res := appendMsg(t, e, "", "s1", memory.RoleAssistant, a)
			want = append(want, "user: "+u, "assistant: "+a)
			if len(res.Retained) != 0 {
				t.Fatalf("extracted after %d user messages", i)
			}
			clock.Advance(time.Second)
		}
		st := appendMsg(t, e, "", "s1", memory.RoleAssistant, "Tell me more.").State
		want = append(want, "assistant: Tell me more.")
		if st.Messages != 19 || st.UserMessages != 9 || st.FirstSeq != 1 || st.LastSeq != 19 {
			t.Fatalf("state before the 10th user message: %+v", st)
		}
		if d, _ := e.Stats(ctx, ""); d.Documents != 0 {
			t.Fatalf("%d documents before extraction", d.Documents)
		}

		res := appendMsg(t, e, "", "s1", memory.RoleUser, "Caroline loved the Rodin museum most.")
		want = append(want, "user: Caroline loved the Rodin museum most.")
		if len(res.Retained) != 1 || res.Retained[0].Facts == 0 || res.Retained[0].Duplicate {
			t.Fatalf("10th user message: got %+v, want one document retained", res)
		}
		if res.State.Messages != 0 || res.State.Session != "s1" {
			t.Errorf("state after extraction: %+v, want an empty buffer", res.State)
		}
		got := documentMessages(t, e, memory.DefaultBank, "s1:1-20")
		if !slices.Equal(texts(got), want) {
			t.Errorf("document messages:\n got %q\nwant %q", texts(got), want)
		}
		if !got[0].Time.Equal(t0) {
			t.Errorf("first message time %v, want its arrival %v", got[0].Time, t0)
		}
		rec, err := e.Recall(ctx, memory.Query{Text: "Which museum did Caroline love?"})
		if err != nil || len(rec.Results) == 0 {
			t.Fatalf("Recall: %v, %v", rec, err)
		}
		// Seqs go on: the next document never replaces this one.
		if st := appendMsg(t, e, "", "s1", memory.RoleUser, "Next day.").State; st.FirstSeq != 21 || st.Messages != 1 {
			t.Errorf("state after the next message: %+v, want seq 21 alone", st)
		}
	})
	t.Run("Speaker", func(t *testing.T) {
		e := openAt(t, newDBPath(t), testutil.NewClock(t0), Config{JobPoll: -1, SessionIdle: -1, SessionUserMessages: 1})
		when := t0.Add(-24 * time.Hour)
		res, err := e.AppendMessage(ctx, "", "s", memory.RoleUser, memory.Message{ID: "m1", Speaker: "Caroline", Text: "I adopted a cat.", Time: when})
		if err != nil || len(res.Retained) != 1 {
			t.Fatalf("AppendMessage: %+v, %v", res, err)
		}
		got := documentMessages(t, e, memory.DefaultBank, "s:1-1")
		if len(got) != 1 || got[0].Speaker != "Caroline" || got[0].ID != "m1" || !got[0].Time.Equal(when) {
			t.Errorf("document message: %+v, want speaker, id and time kept", got)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		e := openAt(t, newDBPath(t), testutil.NewClock(t0), noWorkers)
		cases := []struct {
			name          string
			bank, session string
			role          memory.Role
			text          string
			code          string
		}{
			{"empty text", "", "s", memory.RoleUser, " ", memory.EINVALID},
			{"bad UTF-8", "", "s", memory.RoleUser, "caf\xe9", memory.EINVALID},
			{"too large", "", "s", memory.RoleUser, strings.Repeat("a", memory.MaxContentBytes+1), memory.EINVALID},
			{"no session", "", "", memory.RoleUser, "x", memory.EINVALID},
			{"long session", "", strings.Repeat("s", MaxSessionIDBytes+1), memory.RoleUser, "x", memory.EINVALID},
			{"bad session", "", "s\xff", memory.RoleUser, "x", memory.EINVALID},
			{"tool role", "", "s", memory.RoleTool, "x", memory.EINVALID},
			{"no role", "", "s", "", "x", memory.EINVALID},
			{"bad bank", "a/b", "s", memory.RoleUser, "x", memory.EINVALID},
			{"unknown bank", "nope", "s", memory.RoleUser, "x", memory.ENOTFOUND},
		}
		for _, c := range cases {
			_, err := e.AppendMessage(ctx, c.bank, c.session, c.role, memory.Message{Text: c.text})
			wantCode(t, "AppendMessage("+c.name+")", err, c.code)
		}
		if _, err := e.Sessions(ctx, ""); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("Sessions after refused appends: %v, want ENOTFOUND (nothing created)", err)
		}
	})
}

func TestEngine_AppendMessage_ExtractFails(t *testing.T) {
	ctx := context.Background()
	emb := &flakyEmbedder{Embedder: hashembed.New(hashembed.DefaultDimension), err: memory.Errorf(memory.EUNAVAILABLE, "embedder down"), fails: 1}
	cfg := noWorkers
	cfg.Embedder, cfg.SessionUserMessages = emb, 2
	e := openAt(t, newDBPath(t), testutil.NewClock(t0), cfg)
	appendMsg(t, e, "", "s", memory.RoleUser, "Caroline sings in a choir.")
	res, err := e.AppendMessage(ctx, "", "s", memory.RoleUser, memory.Message{Text: "Melanie plays the violin."})
	if err != nil {
		t.Fatalf("AppendMessage: %v (want success: the message is buffered)", err)
	}
	if !strings.Contains(res.ExtractError, "embedder down") || len(res.Retained) != 0 || res.State.Messages != 2 {
		t.Fatalf("append whose extraction failed: got %+v, want the error and 2 messages buffered", res)
	}
	if st, _ := e.Stats(ctx, ""); st.Documents != 0 {
		t.Fatalf("%d documents after a failed extraction", st.Documents)
	}
	res = appendMsg(t, e, "", "s", memory.RoleUser, "Both perform on Sunday.")
	if len(res.Retained) != 1 || res.State.Messages != 0 {
		t.Fatalf("next append: got %+v, want the 3 messages extracted", res)
	}
	if got := documentMessages(t, e, memory.DefaultBank, "s:1-3"); len(got) != 3 {
		t.Errorf("document holds %d messages, want 3", len(got))
	}
}

// A failed write leaves the buffer whole: the drain is in the document's
// transaction.
func TestEngine_FlushSession_WriteFails(t *testing.T) {
	ctx := context.Background()
	st := testutil.OpenStore(t)
	fs := &testutil.FailingStore{Store: st}
	cfg := noWorkers
	cfg.Store = fs
	e := openAt(t, "", testutil.NewClock(t0), cfg)
	for _, text := range []string{"Caroline moved to Lisbon.", "She loves it."} {
		appendMsg(t, e, "", "s", memory.RoleUser, text)
	}
	fs.WriteErr = memory.Errorf(memory.EUNAVAILABLE, "disk full")
	if _, err := e.FlushSession(ctx, "", "s"); memory.ErrorCode(err) != memory.EUNAVAILABLE {
		t.Fatalf("FlushSession(write fails): %v, want EUNAVAILABLE", err)
	}
	if n := len(buffered(t, e, "", "s")); n != 2 {
		t.Fatalf("after a failed write: %d messages buffered, want 2", n)
	}
	fs.WriteErr = nil
	res, err := e.FlushSession(ctx, "", "s")
	if err != nil || len(res.Retained) != 1 || res.State.Messages != 0 {
		t.Fatalf("FlushSession: %+v, %v; want one document and an empty buffer", res, err)
	}
	// Nothing buffered: nothing to do.
	res, err = e.FlushSession(ctx, "", "s")
	if err != nil || len(res.Retained) != 0 || res.Dropped != 0 {
		t.Errorf("FlushSession(empty): %+v, %v; want nothing done", res, err)
	}
	if _, err := e.FlushSession(ctx, "", ""); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("FlushSession(no session): %v, want EINVALID", err)
	}
	if _, err := e.FlushSession(ctx, "nope", "s"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("FlushSession(unknown bank): %v, want ENOTFOUND", err)
	}
}

// Buffered messages survive a restart and are extracted by the next
// engine.
func TestEngine_FlushSession_Durable(t *testing.T) {
	ctx := context.Background()
	path, clock := newDBPath(t), testutil.NewClock(t0)
	e := openAt(t, path, clock, noWorkers)
	if _, err := e.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	appendMsg(t, e, "b", "chat-7", memory.RoleUser, "Melanie is training for a marathon.")
	appendMsg(t, e, "b", "chat-7", memory.RoleAssistant, "When is the race?")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openAt(t, path, clock, noWorkers)
	ss, err := e.Sessions(ctx, "b")
	if err != nil || len(ss) != 1 || ss[0].Messages != 2 || ss[0].UserMessages != 1 {
		t.Fatalf("Sessions after reopening: %+v, %v", ss, err)
	}
	res, err := e.FlushSession(ctx, "b", "chat-7")
	if err != nil || len(res.Retained) != 1 {
		t.Fatalf("FlushSession: %+v, %v", res, err)
	}
	if got := documentMessages(t, e, "b", "chat-7:1-2"); len(got) != 2 {
		t.Errorf("document holds %d messages, want 2", len(got))
	}
}

func TestEngine_FlushIdleSessions(t *testing.T) {
	ctx := context.Background()
	clock := testutil.NewClock(t0)
	e := openAt(t, newDBPath(t), clock, Config{JobPoll: -1}) // idle trigger on (default 5 min)
	if _, err := e.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	appendMsg(t, e, "", "early", memory.RoleUser, "Caroline started a pottery class.")
	appendMsg(t, e, "b", "other-bank", memory.RoleUser, "Melanie bought a kayak.")
	clock.Advance(3 * time.Minute)
	appendMsg(t, e, "", "late", memory.RoleUser, "Melanie went camping.")

	tick := func(want int) {
		t.Helper()
		n, err := e.sessions.tick(ctx)
		if err != nil || n != want {
			t.Fatalf("tick at %v: got %d, %v; want %d sessions extracted", clock.Now().Sub(t0), n, err, want)
		}
	}
	clock.Advance(time.Minute + 59*time.Second) // 4:59 after the first
	tick(0)
	clock.Advance(time.Second) // 5:00
	tick(2)
	if n := len(buffered(t, e, "", "early")); n != 0 {
		t.Errorf("idle session still holds %d messages", n)
	}
	if n := len(buffered(t, e, "", "late")); n != 1 {
		t.Errorf("active session holds %d messages, want its 1", n)
	}
	documentMessages(t, e, memory.DefaultBank, "early:1-1")
	documentMessages(t, e, "b", "other-bank:1-1")
	tick(0)
	clock.Advance(3 * time.Minute) // 5:00 after "late"
	if n, err := e.FlushIdleSessions(ctx); err != nil || n != 1 {
		t.Fatalf("FlushIdleSessions: %d, %v; want 1", n, err)
	}
	documentMessages(t, e, memory.DefaultBank, "late:1-1")

	// Disabled: never by idle time.
	e2 := openAt(t, newDBPath(t), clock, noWorkers)
	appendMsg(t, e2, "", "s", memory.RoleUser, "Caroline reads a lot.")
	clock.Advance(24 * time.Hour)
	if n, err := e2.FlushIdleSessions(ctx); err != nil || n != 0 {
		t.Errorf("FlushIdleSessions with the trigger off: %d, %v; want 0", n, err)
	}
}

// stubExtractor finds facts only in texts that contain "fact".
type stubExtractor struct{ inner *extract.Heuristic }

func (s stubExtractor) Extract(ctx context.Context, in extract.Input) (*extract.Result, error) {
	for _, m := range in.Messages {
		if strings.Contains(m.Text, "fact") {
			return s.inner.Extract(ctx, in)
		}
	}
	return &extract.Result{}, nil
}

// A buffer the extractor finds nothing in is dropped, not kept forever.
func TestEngine_FlushSession_NothingToRemember(t *testing.T) {
	ctx := context.Background()
	e := openAt(t, newDBPath(t), testutil.NewClock(t0), noWorkers)
	e.retain.Extractor = stubExtractor{extract.NewHeuristic()}
	appendMsg(t, e, "", "s", memory.RoleUser, "ok")
	appendMsg(t, e, "", "s", memory.RoleAssistant, "sure")
	res, err := e.FlushSession(ctx, "", "s")
	if err != nil || res.Dropped != 2 || len(res.Retained) != 0 || res.State.Messages != 0 {
		t.Fatalf("FlushSession(nothing to remember): %+v, %v; want 2 dropped", res, err)
	}
	appendMsg(t, e, "", "s", memory.RoleUser, "a fact: Caroline paints.")
	res, err = e.FlushSession(ctx, "", "s")
	if err != nil || len(res.Retained) != 1 {
		t.Fatalf("FlushSession: %+v, %v", res, err)
	}
	documentMessages(t, e, memory.DefaultBank, "s:3-3")
}

// A buffer larger than one document may hold is split, none lost.
func TestSplitSession(t *testing.T) {
	big := strings.Repeat("a", memory.MaxContentBytes/2)
	msg := func(seq int64, text string) memory.SessionMessage {
		return memory.SessionMessage{Seq: seq, Role: memory.RoleUser, Message: memory.Message{Text: text}}
	}
	msgs := []memory.SessionMessage{msg(1, big), msg(2, big), msg(3, "small"), msg(4, big)}
	var got [][]int64
	for _, p := range splitSession(msgs) {
		var seqs []int64
		size := 0
		for _, m := range p {
			seqs = append(seqs, m.Seq)
			size += len(m.Text) + len(speaker(m))
		}
		if size > memory.MaxContentBytes {
			t.Errorf("part %v holds %d bytes, over the limit", seqs, size)
		}
		got = append(got, seqs)
	}
	if fmt.Sprint(got) != "[[1] [2 3] [4]]" {
		t.Errorf("splitSession: got %v, want [[1] [2 3] [4]]", got)
	}
	if got := splitSession(msgs[2:3]); len(got) != 1 || len(got[0]) != 1 {
		t.Errorf("splitSession(one message): %v", got)
	}
}

package storetest

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The durable state of background work: ingest watermarks, the job queue
// (retain --async) and streaming session buffers. What the suite pins:
//
//   - EnqueueJob stores a job queued, with no attempts, UpdatedAt =
//     CreatedAt. ClaimJob takes the oldest (CreatedAt) queued job of any
//     bank that is due (UpdatedAt not after the claim time: a retry
//     waits out its backoff), marks it running with one more attempt and
//     UpdatedAt = the claim time; two callers never get the same job.
//     FinishJob sets Status, Result, Error and UpdatedAt and keeps
//     Attempts. RequeueJobs(staleBefore) requeues only running jobs
//     claimed (or renewed) before staleBefore. Jobs lists newest first.
//   - A claim is fenced by its Attempts: RenewJob (the holder's
//     heartbeat) moves UpdatedAt only while the job runs under that
//     claim, and FinishJob ends it only then; a claim lost to a requeue
//     (and maybe a new claim) is ECONFLICT and changes nothing.
//   - AppendSession numbers a session's messages 1, 2, … and never reuses
//     a seq, even after the buffer drained; with no messages it only
//     reports the state. LastAt is the arrival time of the newest
//     message at the store's clock. A batch's DrainSession removes the
//     session's messages up to UpTo with the batch, and a failed or
//     duplicate batch drains nothing.

func testJob(bank, id string, created time.Time) *memory.Job {
	return &memory.Job{ID: id, BankID: bank, Kind: memory.JobRetain, Payload: []byte(`{"Text":"` + id + `"}`), CreatedAt: created}
}

func (e *env) enqueue(j *memory.Job) {
	e.t.Helper()
	if err := e.s.EnqueueJob(e.ctx, j); err != nil {
		e.t.Fatalf("EnqueueJob(%s, %s): %v", j.BankID, j.ID, err)
	}
}

func (e *env) claim(at time.Time) *memory.Job {
	e.t.Helper()
	j, err := e.s.ClaimJob(e.ctx, at)
	if err != nil {
		e.t.Fatalf("ClaimJob(%v): %v", at, err)
	}
	if j == nil {
		e.t.Fatalf("ClaimJob(%v): nil job", at)
	}
	return j
}

func (e *env) noClaim(at time.Time) {
	e.t.Helper()
	j, err := e.s.ClaimJob(e.ctx, at)
	if memory.ErrorCode(err) != memory.ENOTFOUND {
		e.t.Fatalf("ClaimJob(%v): got job %v, error %v, want ENOTFOUND", at, j, err)
	}
}

func (e *env) job(bank, id string) *memory.Job {
	e.t.Helper()
	j, err := e.s.Job(e.ctx, bank, id)
	if err != nil {
		e.t.Fatalf("Job(%s, %s): %v", bank, id, err)
	}
	return j
}

func jobIDs(js []*memory.Job) []string {
	ids := make([]string, len(js))
	for i, j := range js {
		ids[i] = j.ID
	}
	return ids
}

// An enqueued job reads back queued, with everything it was given.
func testJobsEnqueue(e *env) {
	e.newBank("b")
	j := testJob("b", "j1", testTime)
	e.enqueue(j)
	want := &memory.Job{ID: "j1", BankID: "b", Kind: memory.JobRetain, Payload: []byte(`{"Text":"j1"}`), Status: memory.JobQueued, CreatedAt: testTime, UpdatedAt: testTime}
	checkDiff(e.t, "Job", e.job("b", "j1"), want)
	if j.Status != memory.JobQueued || !j.UpdatedAt.Equal(testTime) {
		e.t.Errorf("EnqueueJob set Status %q, UpdatedAt %v on the job; want queued, %v", j.Status, j.UpdatedAt, testTime)
	}
	wantCode(e.t, "EnqueueJob(same id)", e.s.EnqueueJob(e.ctx, testJob("b", "j1", hours(1))), memory.ECONFLICT)
	wantCode(e.t, "EnqueueJob(unknown bank)", e.s.EnqueueJob(e.ctx, testJob("nope", "j2", testTime)), memory.ENOTFOUND)
	wantCode(e.t, "EnqueueJob(no kind)", e.s.EnqueueJob(e.ctx, &memory.Job{ID: "j3", BankID: "b", CreatedAt: testTime}), memory.EINVALID)
	_, err := e.s.Job(e.ctx, "b", "nope")
	wantCode(e.t, "Job(unknown id)", err, memory.ENOTFOUND)
	_, err = e.s.Job(e.ctx, "nope", "j1")
	wantCode(e.t, "Job(unknown bank)", err, memory.ENOTFOUND)
}

// Jobs lists a bank's jobs newest first, up to the limit.
func testJobsList(e *env) {
	e.newBank("b")
	e.newBank("c")
	for i := range 4 {
		e.enqueue(testJob("b", fmt.Sprintf("j%d", i), hours(float64(i))))
	}
	e.enqueue(testJob("c", "other", hours(10)))
	for _, tc := range []struct {
		limit int
		want  []string
	}{{0, []string{"j3", "j2", "j1", "j0"}}, {2, []string{"j3", "j2"}}, {10, []string{"j3", "j2", "j1", "j0"}}} {
		js, err := e.s.Jobs(e.ctx, "b", tc.limit)
		if err != nil {
			e.t.Fatalf("Jobs(b, %d): %v", tc.limit, err)
		}
		noNil(e.t, "Jobs", js)
		checkIDs(e.t, fmt.Sprintf("Jobs(b, %d)", tc.limit), jobIDs(js), tc.want)
	}
	_, err := e.s.Jobs(e.ctx, "nope", 0)
	wantCode(e.t, "Jobs(unknown bank)", err, memory.ENOTFOUND)
}

// Claims take due jobs oldest first across banks; each claim is one more
// attempt, running since the claim.
func testJobsClaimOrder(e *env) {
	e.newBank("b")
	e.newBank("c")
	e.noClaim(hours(100))
	e.enqueue(testJob("b", "second", hours(2)))
	e.enqueue(testJob("c", "first", hours(1)))
	e.enqueue(testJob("b", "third", hours(3)))
	e.enqueue(testJob("b", "later", hours(50)))

	at := hours(10)
	var got []string
	for range 3 {
		j := e.claim(at)
		got = append(got, j.ID)
		if j.Status != memory.JobRunning || j.Attempts != 1 || !j.UpdatedAt.Equal(at) {
			e.t.Errorf("ClaimJob: job %s is %s, attempts %d, updated %v; want running, 1, %v", j.ID, j.Status, j.Attempts, j.UpdatedAt, at)
		}
		if len(j.Payload) == 0 || j.Kind != memory.JobRetain {
			e.t.Errorf("ClaimJob: job %s has kind %q payload %q", j.ID, j.Kind, j.Payload)
		}
		checkDiff(e.t, "Job after claim", e.job(j.BankID, j.ID), j)
	}
	checkIDs(e.t, "claim order", got, []string{"first", "second", "third"})
	// "later" was created after the claim time: not due yet.
	e.noClaim(at)
	if j := e.claim(hours(50)); j.ID != "later" {
		e.t.Errorf("ClaimJob(at its creation): got %s, want later", j.ID)
	}
}

// Finishing a job records its end; a job queued again is claimed again
// once due, one attempt more.
func testJobsFinish(e *env) {
	e.newBank("b")
	e.enqueue(testJob("b", "ok", hours(1)))
	e.enqueue(testJob("b", "bad", hours(2)))
	e.enqueue(testJob("b", "retry", hours(3)))

	ok := e.claim(hours(4))
	ok.Status, ok.Result, ok.UpdatedAt = memory.JobDone, []byte(`{"facts":2}`), hours(5)
	if err := e.s.FinishJob(e.ctx, ok); err != nil {
		e.t.Fatalf("FinishJob(done): %v", err)
	}
	// A job done keeps its result, not its payload (the text it retained).
	checkDiff(e.t, "done job", e.job("b", "ok"), &memory.Job{ID: "ok", BankID: "b", Kind: memory.JobRetain,
		Status: memory.JobDone, Attempts: 1, Result: []byte(`{"facts":2}`), CreatedAt: hours(1), UpdatedAt: hours(5)})

	bad := e.claim(hours(4))
	bad.Status, bad.Error, bad.UpdatedAt = memory.JobFailed, "boom", hours(5)
	if err := e.s.FinishJob(e.ctx, bad); err != nil {
		e.t.Fatalf("FinishJob(failed): %v", err)
	}
	if got := e.job("b", "bad"); got.Status != memory.JobFailed || got.Error != "boom" || got.Attempts != 1 || len(got.Result) != 0 {
		e.t.Errorf("failed job: got %+v", got)
	}

	// Queued again with a backoff: not due before it.
	r := e.claim(hours(4))
	r.Status, r.Error, r.UpdatedAt = memory.JobQueued, "provider down", hours(8)
	if err := e.s.FinishJob(e.ctx, r); err != nil {
		e.t.Fatalf("FinishJob(queued): %v", err)
	}
	if got := e.job("b", "retry"); got.Status != memory.JobQueued || got.Attempts != 1 || got.Error != "provider down" {
		e.t.Errorf("requeued job: got %+v", got)
	}
	e.noClaim(hours(7))
	again := e.claim(hours(8))
	if again.ID != "retry" || again.Attempts != 2 {
		e.t.Errorf("claim after backoff: got %s with %d attempts, want retry with 2", again.ID, again.Attempts)
	}
	e.noClaim(hours(100))

	wantCode(e.t, "FinishJob(unknown job)", e.s.FinishJob(e.ctx, &memory.Job{ID: "nope", BankID: "b", Status: memory.JobDone, UpdatedAt: hours(9)}), memory.ENOTFOUND)
	wantCode(e.t, "FinishJob(running)", e.s.FinishJob(e.ctx, &memory.Job{ID: "retry", BankID: "b", Status: memory.JobRunning, UpdatedAt: hours(9)}), memory.EINVALID)
}

// Concurrent claimers share the queue: every job is claimed exactly once.
func testJobsClaimConcurrent(e *env) {
	const jobs, workers = 40, 8
	e.newBank("b")
	e.newBank("c")
	var want []string
	for i := range jobs {
		bank := []string{"b", "c"}[i%2]
		id := fmt.Sprintf("j%02d", i)
		e.enqueue(testJob(bank, id, hours(float64(i)/100)))
		want = append(want, bank+"/"+id)
	}
	var (
		mu  sync.Mutex
		got []string
		wg  sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				j, err := e.s.ClaimJob(e.ctx, hours(1))
				if memory.ErrorCode(err) == memory.ENOTFOUND {
					return
				}
				if err != nil {
					e.t.Errorf("ClaimJob: %v", err)
					return
				}
				mu.Lock()
				got = append(got, j.BankID+"/"+j.ID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	checkIDSet(e.t, "claimed jobs", got, want)
}

// RequeueJobs puts back only the running jobs whose claim is older than
// the lease; done and fresh ones stay.
func testJobsRequeue(e *env) {
	e.newBank("b")
	for i, id := range []string{"stale", "fresh", "done", "queued"} {
		e.enqueue(testJob("b", id, hours(float64(i))))
	}
	e.claim(hours(1))  // stale
	e.claim(hours(10)) // fresh
	d := e.claim(hours(10))
	d.Status, d.UpdatedAt = memory.JobDone, hours(10)
	if err := e.s.FinishJob(e.ctx, d); err != nil {
		e.t.Fatal(err)
	}
	n, err := e.s.RequeueJobs(e.ctx, hours(5))
	if err != nil || n != 1 {
		e.t.Fatalf("RequeueJobs(before hour 5): got %d, %v; want 1", n, err)
	}
	for id, want := range map[string]memory.JobStatus{"stale": memory.JobQueued, "fresh": memory.JobRunning, "done": memory.JobDone, "queued": memory.JobQueued} {
		if got := e.job("b", id); got.Status != want {
			e.t.Errorf("job %s after RequeueJobs: %s, want %s", id, got.Status, want)
		}
	}
	if got := e.job("b", "stale"); got.Attempts != 1 {
		e.t.Errorf("requeued job has %d attempts, want 1 (kept)", got.Attempts)
	}
	// The requeued job is due at once, before the never-claimed one.
	if j := e.claim(hours(11)); j.ID != "stale" || j.Attempts != 2 {
		e.t.Errorf("claim after requeue: got %s (%d attempts), want stale (2)", j.ID, j.Attempts)
	}
	if n, err := e.s.RequeueJobs(e.ctx, hours(5)); err != nil || n != 0 {
		e.t.Errorf("RequeueJobs again: got %d, %v; want 0", n, err)
	}
}

// A holder's heartbeat keeps its job from being requeued; a claim lost
// to a requeue can neither renew nor finish the job, whoever holds it
// now.
func testJobsRenew(e *env) {
	e.newBank("b")
	e.enqueue(testJob("b", "long", hours(0)))
	j := e.claim(hours(1))
	if err := e.s.RenewJob(e.ctx, j, hours(6)); err != nil {
		e.t.Fatalf("RenewJob: %v", err)
	}
	if !j.UpdatedAt.Equal(hours(6)) {
		e.t.Errorf("RenewJob left the caller's UpdatedAt at %v, want %v", j.UpdatedAt, hours(6))
	}
	if n, err := e.s.RequeueJobs(e.ctx, hours(5)); err != nil || n != 0 {
		e.t.Fatalf("RequeueJobs(before hour 5) of a job renewed at hour 6: got %d, %v; want 0", n, err)
	}
	if got := e.job("b", "long"); got.Status != memory.JobRunning || !got.UpdatedAt.Equal(hours(6)) || got.Attempts != 1 {
		e.t.Errorf("renewed job: %+v", got)
	}
	// The holder stalls: the lease runs out, another worker claims it.
	if n, err := e.s.RequeueJobs(e.ctx, hours(7)); err != nil || n != 1 {
		e.t.Fatalf("RequeueJobs(before hour 7): got %d, %v; want 1", n, err)
	}
	stale := *j
	wantCode(e.t, "RenewJob(claim requeued)", e.s.RenewJob(e.ctx, &stale, hours(8)), memory.ECONFLICT)
	now := e.claim(hours(8))
	if now.Attempts != 2 {
		e.t.Fatalf("second claim: %d attempts, want 2", now.Attempts)
	}
	wantCode(e.t, "RenewJob(claim taken by another)", e.s.RenewJob(e.ctx, &stale, hours(9)), memory.ECONFLICT)
	stale.Status, stale.Result, stale.UpdatedAt = memory.JobDone, []byte(`{"old":true}`), hours(9)
	wantCode(e.t, "FinishJob(claim taken by another)", e.s.FinishJob(e.ctx, &stale), memory.ECONFLICT)
	if got := e.job("b", "long"); got.Status != memory.JobRunning || got.Attempts != 2 || len(got.Result) != 0 || !got.UpdatedAt.Equal(hours(8)) {
		e.t.Errorf("the lost claim changed the job: %+v", got)
	}
	// The live holder finishes; after that no claim renews or finishes it.
	now.Status, now.UpdatedAt = memory.JobDone, hours(10)
	if err := e.s.FinishJob(e.ctx, now); err != nil {
		e.t.Fatalf("FinishJob(current claim): %v", err)
	}
	wantCode(e.t, "RenewJob(job done)", e.s.RenewJob(e.ctx, now, hours(11)), memory.ECONFLICT)
	wantCode(e.t, "FinishJob(job done)", e.s.FinishJob(e.ctx, now), memory.ECONFLICT)
	wantCode(e.t, "RenewJob(unknown job)", e.s.RenewJob(e.ctx, &memory.Job{ID: "nope", BankID: "b", Attempts: 1}, hours(11)), memory.ENOTFOUND)
}

// A deleted bank takes its jobs with it; banks never see each other's.
func testJobsIsolation(e *env) {
	e.newBank("b")
	e.newBank("c")
	e.enqueue(testJob("b", "j", hours(1)))
	e.enqueue(testJob("c", "j", hours(2)))
	if got := e.job("c", "j"); got.BankID != "c" || !got.CreatedAt.Equal(hours(2)) {
		e.t.Errorf("Job(c, j): got %+v, want bank c's", got)
	}
	if err := e.s.DeleteBank(e.ctx, "b"); err != nil {
		e.t.Fatal(err)
	}
	e.newBank("b")
	js, err := e.s.Jobs(e.ctx, "b", 0)
	if err != nil || len(js) != 0 {
		e.t.Errorf("Jobs of a re-created bank: got %q, %v; want none", jobIDs(js), err)
	}
	if j := e.claim(hours(3)); j.BankID != "c" {
		e.t.Errorf("claim after DeleteBank: got bank %s's job, want c's", j.BankID)
	}
	e.noClaim(hours(3))
}

func (e *env) appendSession(bank, session string, msgs ...memory.SessionMessage) *memory.SessionState {
	e.t.Helper()
	st, err := e.s.AppendSession(e.ctx, bank, session, msgs)
	if err != nil {
		e.t.Fatalf("AppendSession(%s, %s): %v", bank, session, err)
	}
	if st == nil {
		e.t.Fatalf("AppendSession(%s, %s): nil state", bank, session)
	}
	return st
}

func (e *env) session(bank, session string) []memory.SessionMessage {
	e.t.Helper()
	ms, err := e.s.Session(e.ctx, bank, session)
	if err != nil {
		e.t.Fatalf("Session(%s, %s): %v", bank, session, err)
	}
	return ms
}

func (e *env) sessions(bank string) []memory.SessionState {
	e.t.Helper()
	ss, err := e.s.Sessions(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("Sessions(%s): %v", bank, err)
	}
	return ss
}

func userMsg(text string, at time.Time) memory.SessionMessage {
	return memory.SessionMessage{Role: memory.RoleUser, Message: memory.Message{ID: "m-" + text, Speaker: "Caroline", Text: text, Time: at}}
}

func assistantMsg(text string) memory.SessionMessage {
	return memory.SessionMessage{Role: memory.RoleAssistant, Message: memory.Message{Text: text}}
}

func seqs(ms []memory.SessionMessage) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.Seq
	}
	return out
}

// checkState compares a state with want, LastAt only for being in
// [from, to] (the store's clock).
func checkState(e *env, what string, got *memory.SessionState, want memory.SessionState, from, to time.Time) {
	e.t.Helper()
	checkDiff(e.t, what, got, &want, "LastAt")
	if want.Messages > 0 && (got.LastAt.Before(from.Truncate(time.Microsecond)) || got.LastAt.After(to)) {
		e.t.Errorf("%s: LastAt %v, want the arrival time in [%v, %v]", what, got.LastAt, from, to)
	}
	if want.Messages == 0 && !got.LastAt.IsZero() {
		e.t.Errorf("%s: LastAt %v for an empty buffer, want zero", what, got.LastAt)
	}
}

// Messages are numbered in order from 1 and read back as appended; the
// state counts them and their user messages.
func testSessionsAppend(e *env) {
	e.newBank("b")
	checkState(e, "state of an unknown session", e.appendSession("b", "s1"), memory.SessionState{Session: "s1"}, time.Time{}, time.Time{})
	before := time.Now()
	msgs := []memory.SessionMessage{userMsg("I moved to Lisbon", hours(1)), assistantMsg("How is it?"), userMsg("Sunny", zeroTime)}
	st := e.appendSession("b", "s1", msgs...)
	after := time.Now()
	checkState(e, "AppendSession", st, memory.SessionState{Session: "s1", Messages: 3, UserMessages: 2, FirstSeq: 1, LastSeq: 3}, before, after)
	st2 := e.appendSession("b", "s1", assistantMsg("Nice"))
	checkState(e, "AppendSession again", st2, memory.SessionState{Session: "s1", Messages: 4, UserMessages: 2, FirstSeq: 1, LastSeq: 4}, before, time.Now())
	if st2.LastAt.Before(st.LastAt) {
		e.t.Errorf("LastAt went back: %v then %v", st.LastAt, st2.LastAt)
	}
	checkState(e, "AppendSession(no messages)", e.appendSession("b", "s1"), *st2, st2.LastAt, st2.LastAt)

	got := e.session("b", "s1")
	want := append(slices.Clone(msgs), assistantMsg("Nice"))
	if len(got) != len(want) {
		e.t.Fatalf("Session: got %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		want[i].Seq = int64(i + 1)
		checkDiff(e.t, fmt.Sprintf("message %d", i+1), &got[i], &want[i])
	}
	if len(e.session("b", "nope")) != 0 {
		e.t.Errorf("Session(unknown): want no messages")
	}

	e.appendSession("b", "s0", userMsg("other", zeroTime))
	ss := e.sessions("b")
	if len(ss) != 2 || ss[0].Session != "s0" || ss[1].Session != "s1" {
		e.t.Fatalf("Sessions: got %+v, want s0 then s1", ss)
	}
	checkState(e, "Sessions s1", &ss[1], *st2, st2.LastAt, st2.LastAt)
	checkState(e, "Sessions s0", &ss[0], memory.SessionState{Session: "s0", Messages: 1, UserMessages: 1, FirstSeq: 1, LastSeq: 1}, before, time.Now())
}

func testSessionsErrInvalid(e *env) {
	e.newBank("b")
	_, err := e.s.AppendSession(e.ctx, "b", "", []memory.SessionMessage{userMsg("x", zeroTime)})
	wantCode(e.t, "AppendSession(no session)", err, memory.EINVALID)
	tool := userMsg("x", zeroTime)
	tool.Role = memory.RoleTool
	_, err = e.s.AppendSession(e.ctx, "b", "s", []memory.SessionMessage{userMsg("ok", zeroTime), tool})
	wantCode(e.t, "AppendSession(role tool)", err, memory.EINVALID)
	if len(e.session("b", "s")) != 0 {
		e.t.Errorf("a refused append stored messages")
	}
	_, err = e.s.AppendSession(e.ctx, "nope", "s", []memory.SessionMessage{userMsg("x", zeroTime)})
	wantCode(e.t, "AppendSession(unknown bank)", err, memory.ENOTFOUND)
	_, err = e.s.Session(e.ctx, "nope", "s")
	wantCode(e.t, "Session(unknown bank)", err, memory.ENOTFOUND)
	_, err = e.s.Sessions(e.ctx, "nope")
	wantCode(e.t, "Sessions(unknown bank)", err, memory.ENOTFOUND)
}

// sessionBatch is the document the first n buffered messages became.
func sessionBatch(bank, session string, upTo int64) *memory.WriteBatch {
	w := NewTestBatch(bank, fmt.Sprintf("%s-%d", session, upTo), fmt.Sprintf("Caroline said %d things in %s", upTo, session))
	w.DrainSession = &memory.SessionDrain{Session: session, UpTo: upTo}
	return w
}

// A batch's DrainSession removes the messages up to UpTo with the
// document; later messages stay and seqs go on, never reused.
func testSessionsDrain(e *env) {
	e.newBank("b")
	for i := range 5 {
		e.appendSession("b", "s", userMsg(fmt.Sprint(i), zeroTime))
	}
	e.appendSession("b", "t", userMsg("t", zeroTime))
	e.writeNew(sessionBatch("b", "s", 3))
	if got := seqs(e.session("b", "s")); !slices.Equal(got, []int64{4, 5}) {
		e.t.Errorf("after draining up to 3: seqs %v, want [4 5]", got)
	}
	if got := seqs(e.session("b", "t")); !slices.Equal(got, []int64{1}) {
		e.t.Errorf("another session after the drain: seqs %v, want [1]", got)
	}
	st := e.appendSession("b", "s")
	checkState(e, "state after drain", st, memory.SessionState{Session: "s", Messages: 2, UserMessages: 2, FirstSeq: 4, LastSeq: 5}, time.Time{}, time.Now())

	e.writeNew(sessionBatch("b", "s", 5))
	checkState(e, "drained", e.appendSession("b", "s"), memory.SessionState{Session: "s"}, time.Time{}, time.Time{})
	if ss := e.sessions("b"); len(ss) != 1 || ss[0].Session != "t" {
		e.t.Errorf("Sessions after draining s: got %+v, want only t", ss)
	}
	// Seqs go on after a full drain.
	st = e.appendSession("b", "s", userMsg("again", zeroTime))
	if st.FirstSeq != 6 || st.LastSeq != 6 {
		e.t.Errorf("after a full drain: seqs %d-%d, want 6-6", st.FirstSeq, st.LastSeq)
	}
	// A drain with no document (the document was a duplicate) drains too.
	e.write(&memory.WriteBatch{BankID: "b", DrainSession: &memory.SessionDrain{Session: "s", UpTo: 6}})
	if n := len(e.session("b", "s")); n != 0 {
		e.t.Errorf("after a drain-only batch: %d messages, want 0", n)
	}
	_, err := e.s.Write(e.ctx, &memory.WriteBatch{BankID: "b", DrainSession: &memory.SessionDrain{UpTo: 6}})
	wantCode(e.t, "Write(drain of no session)", err, memory.EINVALID)
}

// A batch that fails drains nothing; a duplicate batch applies nothing of
// itself, its drain included.
func testSessionsDrainAtomic(e *env) {
	e.newBank("b")
	for i := range 4 {
		e.appendSession("b", "s", userMsg(fmt.Sprint(i), zeroTime))
	}
	w := sessionBatch("b", "s", 2)
	w.Reinforce = []string{"no-such-fact"}
	_, err := e.s.Write(e.ctx, cloneBatch(w))
	wantCode(e.t, "Write(failing batch with a drain)", err, memory.ENOTFOUND)
	if got := seqs(e.session("b", "s")); !slices.Equal(got, []int64{1, 2, 3, 4}) {
		e.t.Errorf("after a failed batch: seqs %v, want [1 2 3 4]", got)
	}
	e.noDocument("b", memory.SourceNote, w.Document.ItemID)

	e.writeNew(sessionBatch("b", "s", 1))
	dup := sessionBatch("b", "s", 1)
	dup.DrainSession.UpTo = 3
	if res := e.write(dup); !res.Duplicate {
		e.t.Fatalf("Write(same document again): got %+v, want Duplicate", *res)
	}
	if got := seqs(e.session("b", "s")); !slices.Equal(got, []int64{2, 3, 4}) {
		e.t.Errorf("after a duplicate batch: seqs %v, want [2 3 4] (drained up to 1 only)", got)
	}
}

// Banks never see each other's sessions; a deleted bank's go with it.
func testSessionsIsolation(e *env) {
	e.newBank("b")
	e.newBank("c")
	e.appendSession("b", "s", userMsg("in b", zeroTime), userMsg("in b too", zeroTime))
	e.appendSession("c", "s", userMsg("in c", zeroTime))
	if got := e.session("c", "s"); len(got) != 1 || got[0].Text != "in c" || got[0].Seq != 1 {
		e.t.Errorf("Session(c, s): got %+v, want c's one message", got)
	}
	e.writeNew(sessionBatch("c", "s", 1))
	if n := len(e.session("b", "s")); n != 2 {
		e.t.Errorf("a drain in c removed messages of b: %d left, want 2", n)
	}
	if err := e.s.DeleteBank(e.ctx, "b"); err != nil {
		e.t.Fatal(err)
	}
	e.newBank("b")
	if ss := e.sessions("b"); len(ss) != 0 {
		e.t.Errorf("Sessions of a re-created bank: %+v, want none", ss)
	}
	if st := e.appendSession("b", "s", userMsg("new", zeroTime)); st.FirstSeq != 1 {
		e.t.Errorf("a re-created bank's session starts at seq %d, want 1", st.FirstSeq)
	}
}

// A watermark written with a batch, or alone, reads back.
func testWatermarkRead(e *env) {
	e.newBank("b")
	e.newBank("c")
	_, err := e.s.Watermark(e.ctx, "b", "watch:a.jsonl")
	wantCode(e.t, "Watermark(none yet)", err, memory.ENOTFOUND)
	_, err = e.s.Watermark(e.ctx, "nope", "watch:a.jsonl")
	wantCode(e.t, "Watermark(unknown bank)", err, memory.ENOTFOUND)

	w := NewTestBatch("b", "d1", "Caroline moved to Lisbon")
	w.Watermark = &memory.Watermark{BankID: "b", Source: "watch:a.jsonl", LastItem: "120", UpdatedAt: hours(1)}
	e.writeNew(w)
	got, err := e.s.Watermark(e.ctx, "b", "watch:a.jsonl")
	if err != nil {
		e.t.Fatalf("Watermark: %v", err)
	}
	checkDiff(e.t, "Watermark", got, w.Watermark)

	// Alone (a skipped line), with an error.
	wm := &memory.Watermark{BankID: "b", Source: "watch:a.jsonl", LastItem: "180", LastError: "line at byte 120: not JSON", UpdatedAt: hours(2)}
	if res := e.write(&memory.WriteBatch{BankID: "b", Watermark: wm}); res.Duplicate || res.Facts != 0 {
		e.t.Errorf("Write(watermark only): got %+v", *res)
	}
	got, err = e.s.Watermark(e.ctx, "b", "watch:a.jsonl")
	if err != nil {
		e.t.Fatalf("Watermark: %v", err)
	}
	checkDiff(e.t, "Watermark after a watermark-only batch", got, wm)
	_, err = e.s.Watermark(e.ctx, "c", "watch:a.jsonl")
	wantCode(e.t, "Watermark(other bank)", err, memory.ENOTFOUND)
}

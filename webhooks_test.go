package mnemo_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

// receiver is a webhook endpoint that checks each delivery's signature
// and answers with the next scripted status (then 200).
type receiver struct {
	srv      *httptest.Server
	secret   string
	mu       sync.Mutex
	statuses []int
	events   []mnemo.WebhookEvent
	bad      []string // deliveries whose signature did not verify
}

func newReceiver(t *testing.T, clock func() time.Time, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if got, want := req.Header.Get(mnemo.HeaderWebhookSignature), mnemo.WebhookSignature(r.secret, clock(), body); got != want {
			r.bad = append(r.bad, got)
		}
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		if status == http.StatusOK {
			var ev mnemo.WebhookEvent
			json.Unmarshal(body, &ev)
			if req.Header.Get(mnemo.HeaderWebhookDelivery) != ev.ID || req.Header.Get(mnemo.HeaderWebhookEvent) != ev.Event {
				r.bad = append(r.bad, "headers do not match the body")
			}
			r.events = append(r.events, ev)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Event)
	}
	return out
}

// Retain, forget and consolidation events reach the bank's webhook,
// signed; a failed delivery is retried after its backoff and then
// delivered; another bank's events do not reach it; a deleted webhook's
// queued deliveries are dropped, not sent.
func TestWebhooks_Deliveries(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, b := range []string{"a", "b"} {
		if _, err := eng.CreateBank(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	rcv := newReceiver(t, clock, http.StatusInternalServerError)
	w, err := eng.CreateWebhook(ctx, "a", rcv.srv.URL+"/hook", nil)
	if err != nil {
		t.Fatal(err)
	}
	rcv.secret = w.Secret
	if !strings.HasPrefix(w.Secret, "whsec_") || len(w.Events) != len(memory.WebhookEvents) {
		t.Errorf("webhook = %+v", w)
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "a", Text: "Lena adopted a cat called Miso in May."}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: "Bram sold his bike."}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RunJobs(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.got(); len(got) != 0 {
		t.Fatalf("delivered %v while the receiver answered 500", got)
	}
	advance(time.Hour) // past the backoff
	if _, err := eng.RunJobs(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.got(); len(got) != 1 || got[0] != memory.EventRetain {
		t.Fatalf("delivered %v, want one retain.done (bank b's retain is not a's)", got)
	}
	advance(time.Second)
	if _, err := eng.Forget(ctx, "a", mnemo.ForgetSelector{Query: "Miso cat"}); err != nil {
		t.Fatal(err)
	}
	advance(time.Second)
	if _, err := eng.Consolidate(ctx, "a", mnemo.PassLifecycle); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RunJobs(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.got(); strings.Join(got, " ") != "retain.done forget.done consolidation.done" {
		t.Errorf("delivered %v", got)
	}
	if len(rcv.bad) > 0 {
		t.Errorf("deliveries that did not verify: %v", rcv.bad)
	}
	log, err := eng.WebhookDeliveries(ctx, "a", 0)
	if err != nil || len(log) != 3 {
		t.Fatalf("delivery log: %d entries, %v", len(log), err)
	}
	for _, j := range log {
		if j.Status != memory.JobDone {
			t.Errorf("delivery %s: %s (%s)", j.ID, j.Status, j.Error)
		}
	}
	// A deleted webhook's queued delivery is dropped.
	advance(time.Second)
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "a", Text: "Lena moved to Lyon."}); err != nil {
		t.Fatal(err)
	}
	if err := eng.DeleteWebhook(ctx, "a", w.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RunJobs(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.got(); len(got) != 3 {
		t.Errorf("a deleted webhook got %v", got)
	}
	log, _ = eng.WebhookDeliveries(ctx, "a", 1)
	if len(log) != 1 || log[0].Status != memory.JobFailed || !strings.Contains(log[0].Error, "deleted") {
		t.Errorf("the dropped delivery: %+v", log[0])
	}
	if _, err := eng.CreateWebhook(ctx, "a", "ftp://x", nil); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("an ftp URL: %v, want EINVALID", err)
	}
	if _, err := eng.CreateWebhook(ctx, "nope", rcv.srv.URL, nil); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("an unknown bank: %v, want ENOTFOUND", err)
	}
}

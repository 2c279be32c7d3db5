package mnemo

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/internal/id"
	"github.com/mnemo-ai/mnemo/memory"
)

// Webhooks: a bank's events (memory.WebhookEvents) posted to the URLs it
// subscribed, each POST signed, delivered by the job queue with its
// retries and backoff; the delivery log is those jobs (docs/webhooks.md).

// WebhookJobKind is the job kind of one webhook delivery.
const WebhookJobKind = "webhook"

// Webhook delivery headers.
const (
	HeaderWebhookEvent     = "X-Mnemo-Event"
	HeaderWebhookDelivery  = "X-Mnemo-Delivery"
	HeaderWebhookSignature = "X-Mnemo-Signature"
)

// webhookTimeout bounds one delivery attempt.
const webhookTimeout = 10 * time.Second

// webhookCacheTTL is how long a bank's webhook list is reused before it
// is read again (another process may have changed it).
const webhookCacheTTL = 2 * time.Second

// webhookCache keeps each bank's webhooks for webhookCacheTTL, so that a
// retain of many items reads them once, not once per item.
type webhookCache struct {
	mu    sync.Mutex
	banks map[string]webhookList
}

type webhookList struct {
	hooks []*memory.Webhook
	at    time.Time
}

// WebhookEvent is the JSON body of one delivery.
type WebhookEvent struct {
	// ID is the delivery's id (also in X-Mnemo-Delivery): a receiver
	// that sees an id twice (a retry after a lost answer) can drop it.
	ID    string    `json:"id"`
	Event string    `json:"event"`
	Bank  string    `json:"bank"`
	At    time.Time `json:"at"`
	Data  any       `json:"data"`
}

// webhookPayload is a delivery job's payload.
type webhookPayload struct {
	Webhook string          `json:"webhook"`
	Body    json.RawMessage `json:"body"`
}

// CreateWebhook subscribes url to events of bank (all of
// memory.WebhookEvents when none are given) and returns the webhook with
// its signing secret, shown this once. A bad URL or event is EINVALID,
// an unknown bank ENOTFOUND.
func (e *Engine) CreateWebhook(ctx context.Context, bank, url string, events []string) (*memory.Webhook, error) {
	bank = defaultBank(bank)
	if len(events) == 0 {
		events = slices.Clone(memory.WebhookEvents)
	}
	var raw [32]byte
	rand.Read(raw[:])
	now := memory.StoreTime(e.now())
	w := &memory.Webhook{
		ID: id.Derive("wh", now, bank, url, hex.EncodeToString(raw[:4])), BankID: bank, URL: url,
		Secret: "whsec_" + base64.RawURLEncoding.EncodeToString(raw[:]), Events: events, CreatedAt: now,
	}
	if err := e.store.CreateWebhook(ctx, w); err != nil {
		return nil, err
	}
	e.hooks.forget(bank)
	return w, nil
}

// Webhooks lists bank's webhooks, oldest first, secrets included (an
// admin reads them to verify signatures).
func (e *Engine) Webhooks(ctx context.Context, bank string) ([]*memory.Webhook, error) {
	return e.store.Webhooks(ctx, defaultBank(bank))
}

// DeleteWebhook removes a webhook of bank; deliveries already queued
// for it fail ("webhook deleted") instead of being sent.
func (e *Engine) DeleteWebhook(ctx context.Context, bank, id string) error {
	bank = defaultBank(bank)
	if err := e.store.DeleteWebhook(ctx, bank, id); err != nil {
		return err
	}
	e.hooks.forget(bank)
	return nil
}

// WebhookDeliveries is bank's delivery log: its webhook jobs, newest
// first, at most limit (0: the job list's default), each with its
// status, attempts, last error and (when delivered) the answer's status.
func (e *Engine) WebhookDeliveries(ctx context.Context, bank string, limit int) ([]*memory.Job, error) {
	jobs, err := e.store.Jobs(ctx, defaultBank(bank), 0)
	if err != nil {
		return nil, err
	}
	var out []*memory.Job
	for _, j := range jobs {
		if j.Kind == WebhookJobKind {
			out = append(out, j)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// forget drops bank's cached webhook list.
func (c *webhookCache) forget(bank string) {
	c.mu.Lock()
	delete(c.banks, bank)
	c.mu.Unlock()
}

// subscribed returns bank's webhooks that want event, from the cache when
// it is fresh.
func (e *Engine) subscribed(ctx context.Context, bank, event string) []*memory.Webhook {
	c := &e.hooks
	c.mu.Lock()
	l, ok := c.banks[bank]
	c.mu.Unlock()
	if !ok || e.now().Sub(l.at) > webhookCacheTTL {
		hooks, err := e.store.Webhooks(ctx, bank)
		if err != nil {
			return nil // an unknown bank has none; a failing store is logged by the caller's own write
		}
		l = webhookList{hooks: hooks, at: e.now()}
		c.mu.Lock()
		if c.banks == nil {
			c.banks = map[string]webhookList{}
		}
		c.banks[bank] = l
		c.mu.Unlock()
	}
	var out []*memory.Webhook
	for _, w := range l.hooks {
		if w.Wants(event) {
			out = append(out, w)
		}
	}
	return out
}

// emit queues one delivery of event with data to each of bank's webhooks
// that want it. It never fails the caller: what happened has happened; a
// delivery that cannot be queued is logged.
func (e *Engine) emit(ctx context.Context, bank, event string, data any) {
	hooks := e.subscribed(ctx, bank, event)
	if len(hooks) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	now := e.now().UTC().Truncate(time.Microsecond)
	for _, w := range hooks {
		jobID := newJobID(now, bank)
		body, err := json.Marshal(WebhookEvent{ID: jobID, Event: event, Bank: bank, At: now, Data: data})
		if err == nil {
			var payload []byte
			payload, err = json.Marshal(webhookPayload{Webhook: w.ID, Body: body})
			if err == nil {
				err = e.enqueue(ctx, &memory.Job{ID: jobID, BankID: bank, Kind: WebhookJobKind, Payload: payload, CreatedAt: now})
			}
		}
		if err != nil {
			e.log.Warn("webhook delivery not queued", "bank", bank, "webhook", w.ID, "event", event, "err", err)
		}
	}
}

// emitRetained tells bank's webhooks that an item was retained (not when
// it was a duplicate: nothing changed).
func (e *Engine) emitRetained(ctx context.Context, bank string, res *memory.RetainResult) {
	if res == nil || res.Duplicate {
		return
	}
	e.emit(ctx, bank, memory.EventRetain, map[string]any{
		"document_id": res.DocumentID, "facts": res.Facts, "entities": res.Entities, "replaced": res.Replaced,
	})
}

// WebhookSignature is the X-Mnemo-Signature of body sent at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under secret>".
// A receiver recomputes it and refuses old timestamps (replays).
func WebhookSignature(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// deliver sends one delivery job: a POST of its body, signed, to its
// webhook's URL. A 2xx answer delivers it; any other answer or a network
// failure is EUNAVAILABLE, which the job queue retries with backoff
// until its attempts run out. A webhook deleted since is EINVALID (not
// retried).
func (e *Engine) deliver(ctx context.Context, j *memory.Job) ([]byte, error) {
	var p webhookPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "job %s: bad payload: %v", j.ID, err)
	}
	hooks, err := e.store.Webhooks(ctx, j.BankID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(hooks, func(w *memory.Webhook) bool { return w.ID == p.Webhook })
	if i < 0 {
		return nil, memory.Errorf(memory.EINVALID, "webhook %s deleted: delivery dropped", p.Webhook)
	}
	w := hooks[i]
	var ev struct {
		Event string `json:"event"`
	}
	json.Unmarshal(p.Body, &ev)
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(p.Body))
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "webhook %s: %v", w.ID, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mnemo-webhook")
	req.Header.Set(HeaderWebhookEvent, ev.Event)
	req.Header.Set(HeaderWebhookDelivery, j.ID)
	req.Header.Set(HeaderWebhookSignature, WebhookSignature(w.Secret, e.now(), p.Body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "webhook %s: %v", w.ID, err)
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 != 2 {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "webhook %s answered %s", w.ID, res.Status)
	}
	return json.Marshal(map[string]any{"status": res.StatusCode, "url": w.URL})
}

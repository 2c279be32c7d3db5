package memory

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Webhook events: what a bank can tell a URL about.
const (
	// EventRetain: an item was retained (its document and fact counts).
	EventRetain = "retain.done"
	// EventConsolidation: a consolidation run of the bank finished.
	EventConsolidation = "consolidation.done"
	// EventForget: a forget removed facts from the bank.
	EventForget = "forget.done"
)

// WebhookEvents lists every event, in a stable order.
var WebhookEvents = []string{EventRetain, EventConsolidation, EventForget}

// MaxWebhookURL is the longest webhook URL, in bytes.
const MaxWebhookURL = 2048

// Webhook is a URL a bank's events are posted to, each POST signed with
// HMAC-SHA256 under Secret. Webhooks are bank data: they go with the bank
// but are never exported (the secret is a credential).
type Webhook struct {
	ID     string
	BankID string
	URL    string
	// Secret signs each delivery; it is shown once, when the webhook is
	// made.
	Secret string
	// Events are the events delivered; never empty.
	Events    []string
	CreatedAt time.Time
}

// Wants reports whether w subscribes to event.
func (w *Webhook) Wants(event string) bool { return slices.Contains(w.Events, event) }

// ValidateWebhook checks a webhook before it is stored: an id and a bank,
// an absolute http(s) URL of at most MaxWebhookURL bytes, a secret of at
// least 16 bytes, and known events (at least one, no repeats). Errors are
// EINVALID.
func ValidateWebhook(w *Webhook) error {
	if w.ID == "" || w.BankID == "" {
		return Errorf(EINVALID, "webhook: no id or bank")
	}
	if len(w.URL) > MaxWebhookURL {
		return Errorf(EINVALID, "webhook URL is longer than %d bytes", MaxWebhookURL)
	}
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf(EINVALID, "webhook URL %q: want an absolute http:// or https:// URL", w.URL)
	}
	if len(w.Secret) < 16 {
		return Errorf(EINVALID, "webhook secret: want at least 16 bytes")
	}
	if len(w.Events) == 0 {
		return Errorf(EINVALID, "webhook: no events (want some of %s)", strings.Join(WebhookEvents, ", "))
	}
	for i, e := range w.Events {
		if !slices.Contains(WebhookEvents, e) {
			return Errorf(EINVALID, "webhook event %q: want one of %s", e, strings.Join(WebhookEvents, ", "))
		}
		if slices.Contains(w.Events[:i], e) {
			return Errorf(EINVALID, "webhook event %q given twice", e)
		}
	}
	return nil
}

// Webhooks stores a bank's webhooks.
type Webhooks interface {
	// CreateWebhook stores w (ValidateWebhook first); the bank must exist
	// (ENOTFOUND), the id must be new (ECONFLICT).
	CreateWebhook(ctx context.Context, w *Webhook) error
	// Webhooks lists the bank's webhooks, oldest first; an unknown bank is
	// ENOTFOUND.
	Webhooks(ctx context.Context, bankID string) ([]*Webhook, error)
	// DeleteWebhook removes one; an unknown bank or id is ENOTFOUND.
	DeleteWebhook(ctx context.Context, bankID, id string) error
}

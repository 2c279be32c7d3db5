package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Webhook is a bank's webhook. Secret, which signs each delivery
// (X-Mnemo-Signature), is in the answer that creates it and in an admin's
// list.
type Webhook struct {
	ID        string    `json:"id"`
	Bank      string    `json:"bank"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	Secret    string    `json:"secret,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// NewWebhook is w's wire shape.
func NewWebhook(w *memory.Webhook) Webhook {
	return Webhook{ID: w.ID, Bank: w.BankID, URL: w.URL, Events: w.Events, Secret: w.Secret, CreatedAt: w.CreatedAt}
}

// WebhookList is a bank's webhooks, oldest first.
type WebhookList struct {
	Webhooks []Webhook `json:"webhooks"`
}

// CreateWebhook subscribes a URL to some of a bank's events (all when
// none are named).
type CreateWebhook struct {
	URL    string   `json:"url" doc:"absolute http(s) URL to POST events to"`
	Events []string `json:"events,omitempty" doc:"events to deliver: retain.done, consolidation.done, forget.done; all when omitted"`
}

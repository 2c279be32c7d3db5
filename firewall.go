package mnemo

import (
	"context"
	"maps"
	"sync"

	"github.com/mnemo-ai/mnemo/firewall"
	"github.com/mnemo-ai/mnemo/memory"
)

// maskCounts counts the secrets the firewall masked since the engine
// opened, by kind (package firewall's names).
type maskCounts struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *maskCounts) add(found []firewall.Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int64{}
	}
	for _, f := range found {
		c.n[f.Kind]++
	}
}

// MaskedSecrets returns how many secrets retain masked since the engine
// opened, by kind ("openai_key", "private_key", …); /metrics exports
// them.
func (e *Engine) MaskedSecrets() map[string]int64 {
	e.masked.mu.Lock()
	defer e.masked.mu.Unlock()
	return maps.Clone(e.masked.n)
}

// quarantined reports whether a fact's text reads as instructions to a
// model (firewall.Instructions): retain stores such a fact as
// memory.StatusQuarantined, out of recall, context and the proxy's
// injection until a person approves it (mnemo facts restore) or rejects
// it (mnemo facts invalidate).
func quarantined(text string) bool { return len(firewall.Instructions(text)) > 0 }

// redact masks the secrets in what req would store — its text, its
// messages and its metadata values — before any of it is written
// anywhere (a document, a chunk, a fact, the full-text index, a vector's
// input, the job queue, a session buffer): each becomes
// "[REDACTED:kind]" (package firewall). Secrets on the bank's allow-list
// (BankSettings.SecretAllow) stay. Every retain path of the façade calls
// it first.
func (e *Engine) redact(ctx context.Context, req *memory.RetainRequest) {
	var allow []string
	loaded := false
	mask := func(s string) string {
		out, found := firewall.Mask(s, nil)
		if len(found) == 0 {
			return s
		}
		if !loaded {
			loaded = true
			if b, err := e.store.Bank(ctx, defaultBank(req.BankID)); err == nil {
				allow = b.Settings.SecretAllow
			}
		}
		if len(allow) > 0 {
			out, found = firewall.Mask(s, allow)
		}
		e.masked.add(found)
		return out
	}
	req.Text = mask(req.Text)
	for i := range req.Messages {
		req.Messages[i].Text = mask(req.Messages[i].Text)
	}
	copied := false
	for k, v := range req.Metadata {
		if m := mask(v); m != v {
			if !copied { // the caller's map stays theirs
				req.Metadata, copied = maps.Clone(req.Metadata), true
			}
			req.Metadata[k] = m
		}
	}
}

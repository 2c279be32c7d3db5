package mnemo

import (
	"context"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

// MaxHistory bounds how many versions Engine.Fact follows in each
// direction of a fact's supersession chain.
const MaxHistory = 20

// MaxReasonBytes bounds the reason given to Engine.Invalidate.
const MaxReasonBytes = 1000

// FactDetail is one fact with its supersession history: the facts it
// replaced and the facts that replaced it.
type FactDetail struct {
	Fact *memory.Fact
	// Previous are the older versions this fact superseded, directly or
	// through them, newest first (at most MaxHistory).
	Previous []*memory.Fact
	// Next are the newer versions that superseded this fact, in order:
	// Next[0] is Fact.SupersededBy, the last one is current (at most
	// MaxHistory).
	Next []*memory.Fact
}

// Fact returns one fact of a bank with its supersession history, or
// ENOTFOUND.
func (e *Engine) Fact(ctx context.Context, bank, id string) (*FactDetail, error) {
	bank = defaultBank(bank)
	if id == "" {
		return nil, memory.Errorf(memory.EINVALID, "a fact id is required")
	}
	fs, err := e.store.Facts(ctx, bank, []string{id})
	if err != nil {
		return nil, err
	}
	if len(fs) == 0 {
		if _, err := e.store.Bank(ctx, bank); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no fact %s in bank %q", id, bank)
	}
	d := &FactDetail{Fact: fs[0]}
	seen := map[string]bool{id: true}
	for ids := []string{id}; len(ids) > 0 && len(d.Previous) < MaxHistory; {
		older, err := e.store.SupersededBy(ctx, bank, ids)
		if err != nil {
			return nil, err
		}
		ids = nil
		for _, f := range older {
			if !seen[f.ID] && len(d.Previous) < MaxHistory {
				seen[f.ID] = true
				d.Previous = append(d.Previous, f)
				ids = append(ids, f.ID)
			}
		}
	}
	for next := d.Fact.SupersededBy; next != "" && !seen[next] && len(d.Next) < MaxHistory; {
		seen[next] = true
		fs, err := e.store.Facts(ctx, bank, []string{next})
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			break
		}
		d.Next = append(d.Next, fs[0])
		next = fs[0].SupersededBy
	}
	return d, nil
}

// Facts lists a bank's facts that match q, newest first, a page at a
// time (see memory.FactLister.ListFacts): pass the page's Next as
// q.Cursor for the next one. Every status is listed unless q.Statuses
// says otherwise.
func (e *Engine) Facts(ctx context.Context, bank string, q memory.FactQuery) (*memory.FactPage, error) {
	return e.store.ListFacts(ctx, defaultBank(bank), q)
}

// Invalidate takes facts out of recall without deleting anything: each
// active fact becomes archived, exactly as it was otherwise, so Restore
// brings it back. It is all or nothing: an unknown id is ENOTFOUND and a
// superseded fact ECONFLICT, and then no fact changes. Facts already
// archived are left as they are. reason (why, as the caller says it; at
// most MaxReasonBytes of UTF-8) is checked but not stored: the store
// keeps no audit of status changes yet. It returns the ids that changed.
func (e *Engine) Invalidate(ctx context.Context, bank string, ids []string, reason string) ([]string, error) {
	if len(reason) > MaxReasonBytes || !utf8.ValidString(reason) {
		return nil, memory.Errorf(memory.EINVALID, "reason: want at most %d bytes of UTF-8", MaxReasonBytes)
	}
	return e.setStatus(ctx, bank, ids, memory.StatusArchived)
}

// Restore makes archived facts active again, as they were before
// Invalidate (or the archival pass); recall finds them at once. A
// quarantined fact (held back by the memory firewall as instructions to
// a model) is approved the same way; Invalidate rejects one. It is
// all or nothing, like Invalidate; facts already active are left as they
// are. Each restored fact counts one access (someone asked for it back),
// so that the archival pass, which archives facts nobody uses, does not
// take it again the next night. It returns the ids that changed.
func (e *Engine) Restore(ctx context.Context, bank string, ids []string) ([]string, error) {
	bank = defaultBank(bank)
	changed, err := e.setStatus(ctx, bank, ids, memory.StatusActive)
	if err != nil || len(changed) == 0 {
		return changed, err
	}
	if err := e.store.RecordAccess(ctx, bank, changed, e.now()); err != nil {
		// Restored all the same; only the next archival may take them again.
		e.log.Warn("record access of restored facts", "bank", bank, "err", err)
	}
	return changed, nil
}

// setStatus moves facts to status to (memory.Lifecycle).
func (e *Engine) setStatus(ctx context.Context, bank string, ids []string, to memory.Status) ([]string, error) {
	return e.store.SetFactStatus(ctx, defaultBank(bank), ids, to)
}

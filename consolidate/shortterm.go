package consolidate

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Short-term memory (seed 002): a fact retained short-term carries an
// ExpiresAt one TTL after it was retained. Once that has passed, the
// expire pass keeps it — promotes it to long-term by clearing its
// ExpiresAt — if it was recalled at least once or is important, and
// prunes it otherwise: deletes it for good, with every trace of it, as
// forget does. Recall leaves out an expired fact the pass will prune
// ([Lapsed]), so that a short-term memory leaves recall at its TTL even
// where no pass runs; one the pass will keep stays in view.

// DefaultShortTermMinImportance is the importance from which an expired
// short-term fact is kept even if it was never recalled: 0.6, where
// "important" starts on Robothor's importance scale (seed 002's system,
// judge_importance: "0.6–0.8: Important (decisions, preferences,
// project info)"). It sits above 0.5, the importance of a fact nobody
// scored (extract.DefaultImportance; Robothor's unscored default), so
// that without an LLM only the facts that were recalled are kept.
const DefaultShortTermMinImportance = 0.6

// ShortTermDefaults holds the numbers of short-term memory, each a named
// default with the seed it comes from. Its fields carry json tags: the
// names a bank's overrides use (snake_case, prefixed by the pass).
type ShortTermDefaults struct {
	// TTL is how long a short-term fact lives before the expire pass
	// promotes or prunes it: memory.DefaultShortTermTTL, 48 h (seed 002).
	// A bank's BankSettings.ShortTermTTL overrides it.
	TTL time.Duration `json:"short_term_ttl"`
	// MinImportance keeps an expired short-term fact that was never
	// recalled when its importance is at least this:
	// DefaultShortTermMinImportance.
	MinImportance float64 `json:"short_term_min_importance"`
}

// defaultShortTermDefaults returns the seeds' numbers for short-term memory.
func defaultShortTermDefaults() ShortTermDefaults {
	return ShortTermDefaults{TTL: memory.DefaultShortTermTTL, MinImportance: DefaultShortTermMinImportance}
}

// Validate reports unusable numbers as EINVALID: the TTL must be
// positive and MinImportance within 0–1.
func (d ShortTermDefaults) Validate() error {
	switch {
	case d.TTL <= 0:
		return memory.Errorf(memory.EINVALID, "consolidate: short-term TTL %s: want a positive duration", d.TTL)
	case d.MinImportance < 0 || d.MinImportance > 1:
		return memory.Errorf(memory.EINVALID, "consolidate: short-term min importance %g: want 0 to 1", d.MinImportance)
	}
	return nil
}

// KeepShortTerm reports whether the expire pass keeps f, a short-term
// fact whose time is up, as long-term memory: it was accessed (recalled)
// at least once — seed 002's short-term memory is "access-tracked", and
// what was used is worth keeping — or its importance is at least
// d.MinImportance.
func KeepShortTerm(f *memory.Fact, d ShortTermDefaults) bool {
	return f.AccessCount > 0 || f.Importance >= d.MinImportance
}

// Lapsed reports whether f is a short-term fact whose time is up at now
// and that the expire pass will prune rather than keep: recall no longer
// returns it.
func Lapsed(f *memory.Fact, now time.Time, d ShortTermDefaults) bool {
	return f.ExpiresBy(now) && !KeepShortTerm(f, d)
}

// ExpireStore is what the expire pass needs of a store: the bank's
// short-term facts whose time is up, a page at a time
// (memory.FactQuery.ExpiresBy), their promotion, and forget for the rest.
type ExpireStore interface {
	ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error)
	Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error)
	PromoteFacts(ctx context.Context, bankID string, ids []string) ([]string, error)
	Forget(ctx context.Context, bankID string, ids []string, rec *memory.ForgetRecord) (*memory.ForgetRecord, error)
}

// ExpireActor is who the expire pass's forget records name.
const ExpireActor = "consolidate:expire"

// ExpireResult counts what one expire pass did.
type ExpireResult struct {
	// Expired is how many short-term facts whose time was up it read.
	Expired int
	// Promoted is how many of them it made long-term.
	Promoted int
	// Pruned is how many it deleted.
	Pruned int
}

// Counts is r as a run record's counters.
func (r *ExpireResult) Counts() map[string]int {
	return map[string]int{"expired": r.Expired, "promoted": r.Promoted, "pruned": r.Pruned}
}

// Expire is the expire pass (seed 002, "archive expiring short-term,
// prune expired"; no LLM): it walks the bank's short-term facts whose
// ExpiresAt is at or before now, of any status, a page of d.BatchSize at
// a time, and on each page promotes those [KeepShortTerm] keeps (their
// ExpiresAt cleared: long-term memory from now on) and prunes the rest
// with memory.Forgetter.Forget — the fact, its full-text rows and
// vector, its entity refs, links, relation support and observation
// sources, as forget removes them — recording one forget per page with
// Actor ExpireActor. A superseded or archived short-term fact is judged
// the same way: what short-term memory did not keep, its history does
// not keep either.
//
// It is idempotent: what it promoted is long-term and what it pruned is
// gone, so a second run with the same now finds nothing. It is safe
// while retain runs: facts written meanwhile are not yet expired (or
// wait for the next run), and a fact removed meanwhile (forgotten, or
// replaced with a new version of its item) is skipped. Stopped midway,
// each page it finished is whole and the next run does the rest. An
// error stops it and is returned with the counts so far.
func Expire(ctx context.Context, st ExpireStore, bank string, now time.Time, d Defaults) (*ExpireResult, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := d.ShortTerm.Validate(); err != nil {
		return nil, err
	}
	res := &ExpireResult{}
	q := memory.FactQuery{ExpiresBy: now, Limit: d.BatchSize}
	for {
		page, err := st.ListFacts(ctx, bank, q)
		if err != nil {
			return res, fmt.Errorf("expire: list facts: %w", err)
		}
		var keep, prune []string
		for _, f := range page.Facts {
			res.Expired++
			if KeepShortTerm(f, d.ShortTerm) {
				keep = append(keep, f.ID)
			} else {
				prune = append(prune, f.ID)
			}
		}
		if len(keep) > 0 {
			done, err := st.PromoteFacts(ctx, bank, keep)
			if err != nil {
				return res, fmt.Errorf("expire: promote: %w", err)
			}
			res.Promoted += len(done)
		}
		if len(prune) > 0 {
			n, err := pruneFacts(ctx, st, bank, prune, now)
			if err != nil {
				return res, fmt.Errorf("expire: prune: %w", err)
			}
			res.Pruned += n
		}
		if page.Next == "" {
			return res, nil
		}
		q.Cursor = page.Next
	}
}

// pruneFacts forgets ids and returns how many facts went. Forget takes
// all of its ids or none, so when one has gone meanwhile (ENOTFOUND) it
// forgets those that are still there.
func pruneFacts(ctx context.Context, st ExpireStore, bank string, ids []string, now time.Time) (int, error) {
	rec := func() *memory.ForgetRecord {
		return &memory.ForgetRecord{At: now, Actor: ExpireActor, Selector: memory.ForgetAudit{IDs: len(ids)}}
	}
	done, err := st.Forget(ctx, bank, ids, rec())
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		var left []*memory.Fact
		if left, err = st.Facts(ctx, bank, ids); err != nil {
			return 0, err
		}
		if len(left) == 0 {
			return 0, nil
		}
		ids = ids[:0]
		for _, f := range left {
			ids = append(ids, f.ID)
		}
		done, err = st.Forget(ctx, bank, ids, rec())
	}
	if err != nil {
		return 0, err
	}
	return done.Counts.Facts, nil
}

package consolidate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The numbers of archival (seed 001: "Facts and observations that have
// been fully consolidated, have low access decay, and exceed an age
// threshold are automatically archived"). The ages are those of the
// system seed 001 documents (ntrp's archival rules); the threshold is its
// rule on mnemo's decay score (seed 002), see DefaultArchiveDecayThreshold.
const (
	// DefaultArchiveFactAge is how old (since created) a fact must be
	// before it may be archived: 30 days (seed 001's system,
	// ARCHIVE_FACT_MIN_AGE_DAYS).
	DefaultArchiveFactAge = 30 * Day
	// DefaultArchiveDecayThreshold is the decay score under which an old
	// fact or observation counts as unused. ntrp archives under 0.1 of
	// its own access decay; on seed 002's score ([DecayScore]) the same
	// rule — "never used since it went stale" — reads 0.25: a fact of
	// ordinary importance (0.5, floor 0.2) whose recency has fallen under
	// 0.05 and that was never accessed or reinforced scores about 0.2 and
	// is archived; one access (+0.139), one reinforcement (+0.139) or an
	// importance of 0.625 or more keeps it.
	DefaultArchiveDecayThreshold = 0.25
	// DefaultArchiveObservationAge is how old an observation must be
	// before it may be archived: 90 days, longer than a fact (seed 001's
	// system, ARCHIVE_OBSERVATION_MIN_AGE_DAYS).
	DefaultArchiveObservationAge = 90 * Day
	// DefaultArchiveObservationStale is how long an observation must have
	// gone without new evidence and without being recalled: 30 days (seed
	// 001's system, ARCHIVE_OBSERVATION_STALENESS_DAYS, counted from its
	// last update; mnemo also counts from its last recall).
	DefaultArchiveObservationStale = 30 * Day
)

// DefaultArchiveKeepTags are the tags that keep a fact out of archival
// whatever its age and score: "directive" (a must-follow memory is never
// archived, DESIGN §7's directives).
func DefaultArchiveKeepTags() []string { return []string{"directive"} }

// ArchiveDefaults holds the numbers of archival, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type ArchiveDefaults struct {
	FactAge          time.Duration `json:"archive_fact_age"`
	DecayThreshold   float64       `json:"archive_decay_threshold"`
	ObservationAge   time.Duration `json:"archive_observation_age"`
	ObservationStale time.Duration `json:"archive_observation_stale"`
	KeepTags         []string      `json:"archive_keep_tags"`
}

// defaultArchiveDefaults returns the seeds' numbers for archival.
func defaultArchiveDefaults() ArchiveDefaults {
	return ArchiveDefaults{
		FactAge: DefaultArchiveFactAge, DecayThreshold: DefaultArchiveDecayThreshold,
		ObservationAge: DefaultArchiveObservationAge, ObservationStale: DefaultArchiveObservationStale,
		KeepTags: DefaultArchiveKeepTags(),
	}
}

// Validate reports numbers archival cannot use as EINVALID: an age below
// one day (archival is for what has not been used in a long while) or a
// negative threshold.
func (a ArchiveDefaults) Validate() error {
	if a.FactAge < Day || a.ObservationAge < Day || a.ObservationStale < Day {
		return memory.Errorf(memory.EINVALID, "archive: ages must be at least a day")
	}
	if a.DecayThreshold < 0 || math.IsNaN(a.DecayThreshold) {
		return memory.Errorf(memory.EINVALID, "archive: the decay threshold cannot be negative")
	}
	return nil
}

// ArchiveStore is what archival needs of a store: walk the bank's active
// facts a page at a time and archive those that qualify.
type ArchiveStore interface {
	ListFacts(ctx context.Context, bankID string, q memory.FactQuery) (*memory.FactPage, error)
	SetFactStatus(ctx context.Context, bankID string, ids []string, to memory.Status) ([]string, error)
}

// ObservationArchiveStore is what archival needs to archive observations
// too: list them and move their status. [Archive] detects it on its
// store by type assertion; a store without it has its facts archived
// only.
type ObservationArchiveStore interface {
	ListObservations(ctx context.Context, bankID string, limit int) ([]*memory.Observation, error)
	SetObservationStatus(ctx context.Context, bankID string, ids []string, to memory.Status) ([]string, error)
}

// ArchiveResult counts what one archival pass did.
type ArchiveResult struct {
	FactsScanned         int // active facts read
	FactsArchived        int
	ObservationsScanned  int // active observations read
	ObservationsArchived int
}

// Counts is r as a run record's counters.
func (r *ArchiveResult) Counts() map[string]int {
	return map[string]int{
		"facts_scanned": r.FactsScanned, "facts_archived": r.FactsArchived,
		"observations_scanned": r.ObservationsScanned, "observations_archived": r.ObservationsArchived,
	}
}

// Archive is the archival pass (seed 001; DESIGN §6; no LLM): it archives
// the bank's active facts and observations that [ArchivableFact] and
// [ArchivableObservation] select at now. Archived is out of recall (its
// searches read active rows only) and kept whole: Engine.Restore and
// `mnemo restore` bring it back.
//
// Facts are walked a page of d.BatchSize at a time, newest first, and
// each page's selection archived in one status change; observations are
// listed whole (a bank holds far fewer of them) and archived d.BatchSize
// at a time. A fact or observation that changed between the read and the
// write (superseded, forgotten) is left to the next run. The pass is
// idempotent (a second run finds nothing new to archive) and resumable
// (each batch is whole). Errors come from the store, or the defaults'
// validation, with the counts so far.
func Archive(ctx context.Context, st ArchiveStore, bank string, now time.Time, d Defaults) (*ArchiveResult, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	res := &ArchiveResult{}
	q := memory.FactQuery{Statuses: []memory.Status{memory.StatusActive}, Limit: d.BatchSize}
	for {
		page, err := st.ListFacts(ctx, bank, q)
		if err != nil {
			return res, fmt.Errorf("archive: list facts: %w", err)
		}
		var ids []string
		for _, f := range page.Facts {
			res.FactsScanned++
			if ArchivableFact(f, now, d) {
				ids = append(ids, f.ID)
			}
		}
		n, err := archiveBatch(ctx, ids, func(ids []string) ([]string, error) {
			return st.SetFactStatus(ctx, bank, ids, memory.StatusArchived)
		})
		res.FactsArchived += n
		if err != nil {
			return res, fmt.Errorf("archive facts: %w", err)
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	os, ok := st.(ObservationArchiveStore)
	if !ok {
		return res, nil
	}
	obs, err := os.ListObservations(ctx, bank, 0)
	if err != nil {
		return res, fmt.Errorf("archive: list observations: %w", err)
	}
	var ids []string
	for _, o := range obs {
		if st, _ := o.StatusKind(); st != memory.StatusActive {
			continue
		}
		res.ObservationsScanned++
		if ArchivableObservation(o, now, d) {
			ids = append(ids, o.ID)
		}
	}
	for batch := range slices.Chunk(ids, d.BatchSize) {
		n, err := archiveBatch(ctx, batch, func(ids []string) ([]string, error) {
			return os.SetObservationStatus(ctx, bank, ids, memory.StatusArchived)
		})
		res.ObservationsArchived += n
		if err != nil {
			return res, fmt.Errorf("archive observations: %w", err)
		}
	}
	return res, nil
}

// archiveBatch archives ids with set, all at once; when that fails
// because one of them changed since it was read (ECONFLICT: superseded;
// ENOTFOUND: forgotten) it archives them one by one, leaving those out.
// It returns how many changed.
func archiveBatch(ctx context.Context, ids []string, set func([]string) ([]string, error)) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	changed, err := set(ids)
	if err == nil {
		return len(changed), nil
	}
	if code := memory.ErrorCode(err); code != memory.ECONFLICT && code != memory.ENOTFOUND {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		changed, err := set([]string{id})
		switch code := memory.ErrorCode(err); {
		case err == nil:
			n += len(changed)
		case code == memory.ECONFLICT || code == memory.ENOTFOUND:
		default:
			return n, err
		}
	}
	return n, nil
}

// ArchivableFact reports whether archival takes f at now (seed 001):
//
//   - it is active and consolidated (ConsolidatedAt set: what it says is
//     held by an observation; an unconsolidated fact is never archived);
//   - it is not a short-term fact (ExpiresAt set: the expiry pass
//     decides its fate) and carries none of d.Archive.KeepTags;
//   - it was created at least d.Archive.FactAge before now (a fact
//     without a creation time is never archived);
//   - its decay score at now ([DecayScore]) is under
//     d.Archive.DecayThreshold.
func ArchivableFact(f *memory.Fact, now time.Time, d Defaults) bool {
	switch {
	case f.Status != "" && f.Status != memory.StatusActive:
		return false
	case f.ConsolidatedAt.IsZero() || !f.ExpiresAt.IsZero() || f.CreatedAt.IsZero():
		return false
	case now.Sub(f.CreatedAt) < d.Archive.FactAge:
		return false
	}
	for _, t := range f.Tags {
		if slices.Contains(d.Archive.KeepTags, t) {
			return false
		}
	}
	return DecayScore(f, now, d) < d.Archive.DecayThreshold
}

// ArchivableObservation reports whether archival takes o at now (seed
// 001): it is active, created at least d.Archive.ObservationAge before
// now, neither updated nor recalled in the last
// d.Archive.ObservationStale, and its [ObservationDecay] at now is under
// d.Archive.DecayThreshold.
func ArchivableObservation(o *memory.Observation, now time.Time, d Defaults) bool {
	if st, _ := o.StatusKind(); st != memory.StatusActive || o.CreatedAt.IsZero() {
		return false
	}
	if now.Sub(o.CreatedAt) < d.Archive.ObservationAge || now.Sub(lastUsed(o)) < d.Archive.ObservationStale {
		return false
	}
	return ObservationDecay(o, now, d) < d.Archive.DecayThreshold
}

// ObservationDecay is seed 002's decay score ([DecayScore]) read for an
// observation: recency from its last use (the later of its last recall,
// its last update and its creation), its recalls as accesses, and each
// source fact after the first as a reinforcement (a pattern seen again).
// An observation has no importance, so no floor:
//
//	2^(-hours since last use / RecencyHalfLife)
//	+ min(ln(1+accesses)/AccessDivisor, AccessBoostMax)
//	+ min(ln(evidence)/ReinforcementDivisor, ReinforcementBoostMax)
func ObservationDecay(o *memory.Observation, now time.Time, d Defaults) float64 {
	f := &memory.Fact{CreatedAt: lastUsed(o), AccessCount: o.AccessCount, ReinforcementCount: max(o.EvidenceCount-1, 0)}
	return DecayScore(f, now, d)
}

// lastUsed is the later of o's last recall, last update and creation.
func lastUsed(o *memory.Observation) time.Time {
	t := o.CreatedAt
	for _, u := range []time.Time{o.UpdatedAt, o.LastAccessed} {
		if u.After(t) {
			t = u
		}
	}
	return t
}

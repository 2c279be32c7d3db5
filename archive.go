package mnemo

import (
	"context"
	"slices"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
)

// runArchive is the archival pass (consolidate.Archive) over the engine's
// store at the run's time; it needs no LLM.
func (e *Engine) runArchive(ctx context.Context, p passRun) (map[string]int, error) {
	res, err := consolidate.Archive(ctx, e.store, p.bank, p.now, p.d)
	if res == nil {
		return nil, err
	}
	return res.Counts(), err
}

// RestoreObservations makes archived observations active again, as they
// were (the archival pass, or a curator, archived them); recall finds
// them at once. It is all or nothing: an unknown id is ENOTFOUND, and
// then no observation changes; observations already active are left as
// they are. Each restored observation counts one access, so that the
// next archival pass, which archives unused observations, leaves it for
// a while. It returns the ids that changed. A store that moves no
// observation status (memory.ObservationLifecycle) is EUNAVAILABLE.
func (e *Engine) RestoreObservations(ctx context.Context, bank string, ids []string) ([]string, error) {
	bank = defaultBank(bank)
	l, ok := e.store.(memory.ObservationLifecycle)
	if !ok {
		return nil, memory.Errorf(memory.EUNAVAILABLE, "the store cannot restore observations")
	}
	changed, err := l.SetObservationStatus(ctx, bank, ids, memory.StatusActive)
	if err != nil || len(changed) == 0 {
		return changed, err
	}
	if err := l.RecordObservationAccess(ctx, bank, changed, e.now()); err != nil {
		// Restored all the same; only the next archival may take them again.
		e.log.Warn("record access of restored observations", "bank", bank, "err", err)
	}
	return changed, nil
}

// Restored is what Engine.RestoreArchived changed: the facts and the
// observations made active again.
type Restored struct {
	Facts        []string
	Observations []string
}

// RestoreArchived brings archived facts and observations back into
// recall by id, whichever each id names (`mnemo restore ID...`): the
// facts through Engine.Restore, the observations through
// Engine.RestoreObservations. Every id is looked up first: an id that
// names neither a fact nor an observation of the bank is ENOTFOUND and
// nothing changes; a superseded fact is ECONFLICT (Restore's rule) and
// nothing changes. Ids already active are left as they are. An empty
// id, a repeated one or none is EINVALID.
func (e *Engine) RestoreArchived(ctx context.Context, bank string, ids []string) (*Restored, error) {
	bank = defaultBank(bank)
	if len(ids) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "no ids given")
	}
	for i, id := range ids {
		if id == "" {
			return nil, memory.Errorf(memory.EINVALID, "an empty id")
		}
		if slices.Contains(ids[:i], id) {
			return nil, memory.Errorf(memory.EINVALID, "%s given twice", id)
		}
	}
	facts, err := e.store.Facts(ctx, bank, ids)
	if err != nil {
		return nil, err
	}
	if len(facts) == 0 {
		// Facts does not check the bank when no id matches.
		if _, err := e.store.Bank(ctx, bank); err != nil {
			return nil, err
		}
	}
	isFact := map[string]bool{}
	var factIDs []string
	for _, f := range facts {
		isFact[f.ID] = true
		factIDs = append(factIDs, f.ID)
		if _, err := memory.CheckTransition(f.ID, f.Status, memory.StatusActive); err != nil {
			return nil, err
		}
	}
	var rest []string
	for _, id := range ids {
		if !isFact[id] {
			rest = append(rest, id)
		}
	}
	var obsIDs []string
	if len(rest) > 0 {
		os, ok := e.store.(memory.ObservationStore)
		if ok {
			obs, err := os.Observations(ctx, bank, rest)
			if err != nil {
				return nil, err
			}
			for _, o := range obs {
				obsIDs = append(obsIDs, o.ID)
			}
		}
		if len(obsIDs) < len(rest) {
			for _, id := range rest {
				if !slices.Contains(obsIDs, id) {
					return nil, memory.Errorf(memory.ENOTFOUND, "no fact or observation %s in bank %q", id, bank)
				}
			}
		}
	}
	out := &Restored{Facts: []string{}, Observations: []string{}}
	if len(factIDs) > 0 {
		changed, err := e.Restore(ctx, bank, factIDs)
		if err != nil {
			return nil, err
		}
		out.Facts = append(out.Facts, changed...)
	}
	if len(obsIDs) > 0 {
		changed, err := e.RestoreObservations(ctx, bank, obsIDs)
		if err != nil {
			return out, err
		}
		out.Observations = append(out.Observations, changed...)
	}
	return out, nil
}

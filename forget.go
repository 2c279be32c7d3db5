package mnemo

import (
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultForgetQueryLimit is how many recalled facts a forget by query
// selects when ForgetSelector.Limit is 0.
const DefaultForgetQueryLimit = 10

// ForgetSelector says which facts Engine.Forget forgets. Every selector
// set must match (they are ANDed): IDs and a query select the facts
// named or recalled among the others. At least one must be set.
type ForgetSelector struct {
	// IDs are fact ids; each must exist (ENOTFOUND otherwise).
	IDs []string
	// Query selects the facts a recall of it returns, at most Limit
	// (DefaultForgetQueryLimit when 0), with those its observations
	// bundle.
	Query string
	Limit int
	// Entity is an entity's name or alias (any type); an unknown name is
	// ENOTFOUND.
	Entity string
	// Document is a document id; or Source and Item name an item, whose
	// every version goes: the current document and the versions it
	// superseded (kept for history until then).
	Document     string
	Source, Item string
	// From and To bound the facts' event time: [From, To).
	From, To time.Time
	// DryRun lists what would go, with the texts, and changes nothing.
	DryRun bool
	// Actor is who asks, for the audit record ("" is recorded as is).
	Actor string
}

// Forget forgets, for good, the facts of bank that sel selects, with
// every trace of them (memory.Forgetter lists them), and keeps an audit
// record (ForgetLog) of who asked, when, the selector and the counts,
// never the text. With sel.DryRun nothing changes and the result lists
// the facts that would go with their text. Selecting no fact is not an
// error: nothing is forgotten and no record is kept.
func (e *Engine) Forget(ctx context.Context, bank string, sel ForgetSelector) (*memory.ForgetResult, error) {
	bank = defaultBank(bank)
	fg := e.store
	ids, err := e.forgetSelect(ctx, fg, bank, sel)
	if err != nil {
		return nil, err
	}
	res := &memory.ForgetResult{Bank: bank, DryRun: sel.DryRun, Facts: []memory.ForgetFact{}}
	if sel.DryRun {
		facts, err := e.store.Facts(ctx, bank, ids)
		if err != nil {
			return nil, err
		}
		for _, f := range facts {
			res.Facts = append(res.Facts, memory.ForgetFact{ID: f.ID, Text: f.Text})
		}
		return res, nil
	}
	for _, id := range ids {
		res.Facts = append(res.Facts, memory.ForgetFact{ID: id})
	}
	if len(ids) == 0 {
		return res, nil
	}
	at := e.now().UTC().Truncate(time.Microsecond)
	rec, err := fg.Forget(ctx, bank, ids, &memory.ForgetRecord{
		ID: memory.ForgetRecordID(at), At: at, Actor: sel.Actor,
		Selector: memory.ForgetAudit{IDs: len(sel.IDs), Query: memory.Fingerprint(sel.Query), Entity: memory.Fingerprint(sel.Entity), Document: documentName(sel), From: sel.From, To: sel.To},
	})
	if err != nil {
		return nil, err
	}
	res.Counts, res.Record = rec.Counts, rec.ID
	e.emit(ctx, bank, memory.EventForget, map[string]any{"record": rec.ID, "counts": rec.Counts, "actor": sel.Actor})
	return res, nil
}

// documentName is the document of a selector as given: its id, or
// source:item.
func documentName(sel ForgetSelector) string {
	if sel.Document != "" || sel.Item == "" {
		return sel.Document
	}
	return sel.Source + ":" + sel.Item
}

// forgetSelect resolves sel to fact ids: the intersection of what each
// selector set selects, in the order of the first.
func (e *Engine) forgetSelect(ctx context.Context, fg memory.Forgetter, bank string, sel ForgetSelector) ([]string, error) {
	if _, err := e.store.Bank(ctx, bank); err != nil {
		return nil, err
	}
	if sel.Limit < 0 {
		return nil, memory.Errorf(memory.EINVALID, "forget: negative limit %d", sel.Limit)
	}
	if (sel.Source == "") != (sel.Item == "") {
		return nil, memory.Errorf(memory.EINVALID, "forget: a document by item needs both source and item")
	}
	if sel.Document != "" && sel.Item != "" {
		return nil, memory.Errorf(memory.EINVALID, "forget: give a document id or a source and item, not both")
	}
	var sets [][]string
	if len(sel.IDs) > 0 {
		ids, err := memory.ValidateForgetIDs(sel.IDs)
		if err != nil {
			return nil, err
		}
		found, err := e.store.Facts(ctx, bank, ids)
		if err != nil {
			return nil, err
		}
		if len(found) < len(ids) {
			have := map[string]bool{}
			for _, f := range found {
				have[f.ID] = true
			}
			for _, id := range ids {
				if !have[id] {
					return nil, memory.Errorf(memory.ENOTFOUND, "forget: unknown fact %s in bank %q", id, bank)
				}
			}
		}
		sets = append(sets, ids)
	}
	if sel.Query != "" {
		limit := sel.Limit
		if limit == 0 {
			limit = DefaultForgetQueryLimit
		}
		rec, err := e.recall.Recall(ctx, memory.Query{BankID: bank, Text: sel.Query, Limit: limit})
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, r := range rec.Results {
			ids = append(ids, r.Fact.ID)
		}
		for _, o := range rec.Observations {
			for _, f := range o.Facts {
				if !slices.Contains(ids, f.ID) {
					ids = append(ids, f.ID)
				}
			}
		}
		if len(ids) > limit {
			ids = ids[:limit]
		}
		sets = append(sets, ids)
	}
	doc := sel.Document
	stored := memory.ForgetSelector{DocumentID: doc, From: sel.From, To: sel.To}
	if sel.Item != "" {
		// Every version of the item: the current one, and those it
		// superseded (their facts stay for history, so forget reaches them).
		if _, err := e.store.DocumentByItem(ctx, bank, sel.Source, sel.Item); err != nil {
			return nil, err
		}
		stored.Source, stored.Item = sel.Source, sel.Item
	}
	if sel.Entity != "" {
		ents, err := e.store.EntitiesByName(ctx, bank, []string{memory.NormalizeName(sel.Entity)})
		if err != nil {
			return nil, err
		}
		if len(ents) == 0 {
			return nil, memory.Errorf(memory.ENOTFOUND, "forget: unknown entity %q in bank %q", sel.Entity, bank)
		}
		var ids []string
		for _, en := range ents {
			s := stored
			s.EntityID = en.ID
			got, err := fg.ForgetSelect(ctx, bank, s)
			if err != nil {
				return nil, err
			}
			ids = append(ids, got...)
		}
		sets = append(sets, ids)
	} else if !stored.Empty() {
		ids, err := fg.ForgetSelect(ctx, bank, stored)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 && doc != "" {
			if chunks, err := e.store.Chunks(ctx, bank, doc); err == nil && len(chunks) == 0 {
				return nil, memory.Errorf(memory.ENOTFOUND, "forget: unknown document %q in bank %q", doc, bank)
			}
		}
		sets = append(sets, ids)
	}
	if len(sets) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "forget: give ids, a query, an entity, a document or a time range")
	}
	out := sets[0]
	for _, s := range sets[1:] {
		in := map[string]bool{}
		for _, id := range s {
			in[id] = true
		}
		out = slices.DeleteFunc(slices.Clone(out), func(id string) bool { return !in[id] })
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(id string) bool {
		if seen[id] {
			return true
		}
		seen[id] = true
		return false
	}), nil
}

// ForgetLog returns the audit records of bank's forgets, newest first,
// at most limit (0: all).
func (e *Engine) ForgetLog(ctx context.Context, bank string, limit int) ([]*memory.ForgetRecord, error) {
	return e.store.ForgetLog(ctx, defaultBank(bank), limit)
}

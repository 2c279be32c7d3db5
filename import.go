package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// ImportOptions tune Engine.Import.
type ImportOptions struct {
	// CreateBanks creates the banks the requests name when missing;
	// otherwise an unknown bank fails the whole import with ENOTFOUND.
	CreateBanks bool
	// Progress, when set, is called as items land with the count done so
	// far (after each group of retain.DefaultGroup items).
	Progress func(done, total int)
	// WindowBytes is the text an Importer gathers before it imports a
	// window (DefaultImportWindowBytes when 0); Import ignores it.
	WindowBytes int
}

// ImportReport says what an import did. Failed items are listed; every
// other item landed.
type ImportReport struct {
	Items      int           `json:"items"`
	Retained   int           `json:"retained"`
	Duplicates int           `json:"duplicates"`
	Facts      int           `json:"facts"`
	Failed     []ImportError `json:"failed,omitempty"`
}

// ImportError is an item that failed, with the reason.
type ImportError struct {
	Bank  string `json:"bank"`
	Item  string `json:"item"`
	Error string `json:"error"`
}

// Import retains many items, each in its own transaction (or savepoint):
// one that fails is reported and the others go on. Items are prepared in
// parallel and written in order. It stops early only when ctx ends.
func (e *Engine) Import(ctx context.Context, reqs []memory.RetainRequest, opts ImportOptions) (*ImportReport, error) {
	rep := &ImportReport{Items: len(reqs)}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	known := map[string]bool{}
	for i := range reqs {
		if reqs[i].BankID == "" {
			reqs[i].BankID = memory.DefaultBank
		}
		b := reqs[i].BankID
		if known[b] {
			continue
		}
		known[b] = true
		var err error
		switch {
		case opts.CreateBanks:
			if _, err = e.CreateBank(ctx, b); memory.ErrorCode(err) == memory.ECONFLICT {
				err = nil
			}
		case b == memory.DefaultBank:
			err = e.ensureDefaultBank(ctx)
		default:
			_, err = e.store.Bank(ctx, b) // an unknown bank fails the import, not each item
		}
		if err != nil && memory.ErrorCode(err) != memory.EINVALID {
			return rep, err
		}
	}
	var progress func(int)
	if opts.Progress != nil {
		progress = func(done int) { opts.Progress(done, len(reqs)) }
	}
	// Each item is redacted as it is prepared (retain.Pipeline.Redact),
	// in parallel and alongside the writes.
	results, errs := e.retain.RetainMany(ctx, reqs, progress)
	for i, res := range results {
		if errs[i] == nil {
			e.emitRetained(ctx, reqs[i].BankID, res)
		}
	}
	if err := ctx.Err(); err != nil {
		// Count what landed before the end; the rest is the caller's to retry.
		for i, r := range results {
			if errs[i] == nil && r != nil && !r.Duplicate {
				rep.Retained++
				rep.Facts += r.Facts
			}
		}
		return rep, err
	}
	for i, err := range errs {
		switch {
		case err != nil:
			msg := memory.ErrorMessage(err)
			if memory.ErrorCode(err) == memory.EINTERNAL {
				msg = err.Error()
			}
			rep.Failed = append(rep.Failed, ImportError{Bank: reqs[i].BankID, Item: reqs[i].ItemID, Error: msg})
		case results[i].Duplicate:
			rep.Duplicates++
		default:
			rep.Retained++
			rep.Facts += results[i].Facts
		}
	}
	return rep, nil
}

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
	// WindowBytes bounds the text of the requests an Importer holds read
	// ahead of its import (DefaultImportWindowBytes when 0); Import
	// ignores it.
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
// parallel and written in order. Every bank the requests name is checked
// (or created, with CreateBanks) before anything is written. It stops
// early only when ctx ends.
func (e *Engine) Import(ctx context.Context, reqs []memory.RetainRequest, opts ImportOptions) (*ImportReport, error) {
	rep := &ImportReport{Items: len(reqs)}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	banks := importBanks{}
	for i := range reqs {
		if err := banks.check(ctx, e, &reqs[i], opts.CreateBanks); err != nil {
			return rep, err
		}
	}
	var progress func(int)
	if opts.Progress != nil {
		progress = func(done int) { opts.Progress(done, len(reqs)) }
	}
	read := 0
	err := e.importStream(ctx, func() (memory.RetainRequest, bool) {
		if read == len(reqs) {
			return memory.RetainRequest{}, false
		}
		read++
		return reqs[read-1], true
	}, rep, progress)
	return rep, err
}

// importBanks is the banks an import has checked.
type importBanks map[string]bool

// check makes sure req's bank (memory.DefaultBank when it names none)
// can be written, once per bank: created when create is set and it is
// missing; an unknown bank otherwise ends the import with ENOTFOUND. A
// bank id that is not valid is left for its items to fail.
func (b importBanks) check(ctx context.Context, e *Engine, req *memory.RetainRequest, create bool) error {
	if req.BankID == "" {
		req.BankID = memory.DefaultBank
	}
	id := req.BankID
	if b[id] {
		return nil
	}
	b[id] = true
	var err error
	switch {
	case create:
		if _, err = e.CreateBank(ctx, id); memory.ErrorCode(err) == memory.ECONFLICT {
			err = nil
		}
	case id == memory.DefaultBank:
		err = e.ensureDefaultBank(ctx)
	default:
		_, err = e.store.Bank(ctx, id) // an unknown bank fails the import, not each item
	}
	if err != nil && memory.ErrorCode(err) != memory.EINVALID {
		return err
	}
	return nil
}

// importStream retains the requests next hands over (retain.Pipeline's
// RetainStream: each item redacted and prepared in parallel, written in
// order, in groups of one commit) and adds each one's outcome to rep:
// Retained, Duplicates, Facts and Failed; Items is the caller's. It
// returns ctx's error when ctx ended: what landed before is counted, the
// rest is the caller's to retry.
func (e *Engine) importStream(ctx context.Context, next func() (memory.RetainRequest, bool), rep *ImportReport, progress func(int)) error {
	e.retain.RetainStream(ctx, next, func(_ int, req *memory.RetainRequest, res *memory.RetainResult, err error) {
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return // not written: the caller retries it
			}
			msg := memory.ErrorMessage(err)
			if memory.ErrorCode(err) == memory.EINTERNAL {
				msg = err.Error()
			}
			rep.Failed = append(rep.Failed, ImportError{Bank: req.BankID, Item: req.ItemID, Error: msg})
		case res.Duplicate:
			rep.Duplicates++
		default:
			e.emitRetained(ctx, req.BankID, res)
			rep.Retained++
			rep.Facts += res.Facts
		}
	}, progress)
	return ctx.Err()
}

package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// ImportOptions tune Engine.Import.
type ImportOptions struct {
	// CreateBanks creates the banks the requests name when missing;
	// otherwise an unknown bank fails its items.
	CreateBanks bool
	// Progress, when set, is called after each item with the count done.
	Progress func(done, total int)
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

// Import retains many items, each in its own transaction: one that fails
// is reported and the others go on. It stops early only when ctx ends.
func (e *Engine) Import(ctx context.Context, reqs []memory.RetainRequest, opts ImportOptions) (*ImportReport, error) {
	rep := &ImportReport{Items: len(reqs)}
	known := map[string]bool{}
	for i, req := range reqs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if req.BankID == "" {
			req.BankID = memory.DefaultBank
		}
		if opts.CreateBanks && !known[req.BankID] {
			if _, err := e.CreateBank(ctx, req.BankID); err != nil && memory.ErrorCode(err) != memory.ECONFLICT {
				return rep, err
			}
			known[req.BankID] = true
		}
		res, err := e.Retain(ctx, req)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			msg := memory.ErrorMessage(err)
			if memory.ErrorCode(err) == memory.EINTERNAL {
				msg = err.Error()
			}
			rep.Failed = append(rep.Failed, ImportError{Bank: req.BankID, Item: req.ItemID, Error: msg})
		case res.Duplicate:
			rep.Duplicates++
		default:
			rep.Retained++
			rep.Facts += res.Facts
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(reqs))
		}
	}
	return rep, nil
}

package mnemo

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultImportWindowBytes bounds the text of the requests an Importer
// holds at once (ImportOptions.WindowBytes): a window's requests take a
// few times their text (strings, messages); the retain pipeline's own
// memory is bounded within a window (retain.DefaultGroupBytes), so this
// bounds the rest, whatever the size of the file being read.
const DefaultImportWindowBytes = 8 << 20

// Importer imports requests as a reader hands them over, a window at a
// time: Add gathers them, and once a window holds WindowBytes of text it
// is imported whole (Engine.Import: each item all-or-nothing, duplicates
// skipped) before the next is read; Finish imports the rest. The report
// sums the windows. An Importer is for one goroutine. Make it with
// Engine.NewImporter.
type Importer struct {
	ctx   context.Context
	eng   *Engine
	opts  ImportOptions
	limit int
	rep   ImportReport

	reqs   []memory.RetainRequest
	bytes  int
	done   int  // items imported by the windows before
	failed bool // an Import failed: its error is Add's and Finish's
}

// NewImporter returns an Importer into e. opts.Progress, when set, is
// called with the items done and the items read so far (the total is not
// known until the reader ends).
func (e *Engine) NewImporter(ctx context.Context, opts ImportOptions) *Importer {
	limit := opts.WindowBytes
	if limit <= 0 {
		limit = DefaultImportWindowBytes
	}
	return &Importer{ctx: ctx, eng: e, opts: opts, limit: limit}
}

// Add takes one request, and imports the window once it is full. An
// error is the import's (ctx ended, or the store failed): stop reading.
func (im *Importer) Add(r memory.RetainRequest) error {
	im.reqs = append(im.reqs, r)
	im.bytes += r.TextBytes()
	if im.bytes < im.limit {
		return nil
	}
	return im.importNow()
}

// Finish imports what is left, unless err (the reader's error, or
// Add's) ends the import: an Add that failed, or ctx ended. It returns
// the report of every window, and err or the import's error.
func (im *Importer) Finish(err error) (*ImportReport, error) {
	if err != nil && (im.failed || im.ctx.Err() != nil) {
		return &im.rep, err
	}
	if ierr := im.importNow(); ierr != nil {
		return &im.rep, ierr
	}
	return &im.rep, err
}

// Failed reports whether an import of a window failed (the error Add or
// Finish returned is the import's, not the reader's).
func (im *Importer) Failed() bool { return im.failed }

// importNow imports the window's requests and empties it.
func (im *Importer) importNow() error {
	if len(im.reqs) == 0 {
		return nil
	}
	opts := im.opts
	if p := im.opts.Progress; p != nil {
		done, total := im.done, im.done+len(im.reqs)
		opts.Progress = func(n, _ int) { p(done+n, total) }
	}
	rep, err := im.eng.Import(im.ctx, im.reqs, opts)
	if rep != nil {
		im.rep.Items += rep.Items
		im.rep.Retained += rep.Retained
		im.rep.Duplicates += rep.Duplicates
		im.rep.Facts += rep.Facts
		im.rep.Failed = append(im.rep.Failed, rep.Failed...)
	}
	im.done += len(im.reqs)
	clear(im.reqs) // the strings go with the window
	im.reqs, im.bytes = im.reqs[:0], 0
	if err != nil {
		im.failed = true
	}
	return err
}

package mnemo

import (
	"context"
	"sync"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultImportWindowBytes bounds the text of the requests an Importer
// holds read ahead of the import (ImportOptions.WindowBytes): a request
// takes a few times its text (strings, messages); the retain pipeline's
// own memory is bounded apart (retain.DefaultGroupBytes), so this bounds
// the rest, whatever the size of the file being read.
const DefaultImportWindowBytes = 4 << 20

// importQueueItems bounds the requests an Importer holds read ahead, by
// count (WindowBytes bounds their text).
const importQueueItems = 1024

// Importer imports requests as a reader hands them over: Add queues each
// one for an import that runs beside the reader (Engine.Import's, item by
// item: each all-or-nothing, duplicates skipped), so reading the next
// requests overlaps retaining the ones before, and waits while
// WindowBytes of text are queued; Finish waits for the rest. Each bank is
// checked (or created, with CreateBanks) as its first request comes: an
// unknown bank ends the import there, the requests before it imported.
// An Importer is for one goroutine. Make it with Engine.NewImporter.
type Importer struct {
	ctx   context.Context
	eng   *Engine
	opts  ImportOptions
	limit int
	queue chan memory.RetainRequest

	mu     sync.Mutex
	cond   *sync.Cond
	queued int  // the text of the requests queued and not yet taken
	closed bool // Finish: no more requests
	ended  bool // the import returned
	err    error
	rep    ImportReport
	read   int // requests added (the total Progress reports)
	done   chan struct{}
	failed bool // the import failed: its error is Add's and Finish's
}

// NewImporter returns an Importer into e and starts its import.
// opts.Progress, when set, is called with the items done and the items
// read so far (the total is not known until the reader ends), from the
// import's goroutine.
func (e *Engine) NewImporter(ctx context.Context, opts ImportOptions) *Importer {
	limit := opts.WindowBytes
	if limit <= 0 {
		limit = DefaultImportWindowBytes
	}
	im := &Importer{ctx: ctx, eng: e, opts: opts, limit: limit,
		queue: make(chan memory.RetainRequest, importQueueItems), done: make(chan struct{})}
	im.cond = sync.NewCond(&im.mu)
	go im.run()
	return im
}

// run imports what Add queues until Finish, then records the outcome.
func (im *Importer) run() {
	defer close(im.done)
	banks := importBanks{}
	var bankErr error
	next := func() (memory.RetainRequest, bool) {
		r, ok := <-im.queue
		if !ok {
			return r, false
		}
		im.mu.Lock()
		im.queued -= r.TextBytes()
		im.cond.Broadcast()
		im.mu.Unlock()
		if bankErr = banks.check(im.ctx, im.eng, &r, im.opts.CreateBanks); bankErr != nil {
			return r, false
		}
		im.rep.Items++
		return r, true
	}
	var progress func(int)
	if p := im.opts.Progress; p != nil {
		progress = func(done int) {
			im.mu.Lock()
			total := im.read
			im.mu.Unlock()
			p(done, total)
		}
	}
	err := im.eng.importStream(im.ctx, next, &im.rep, progress)
	if err == nil {
		err = bankErr
	}
	im.mu.Lock()
	im.ended, im.err = true, err
	im.cond.Broadcast()
	im.mu.Unlock()
	for range im.queue { // unblock a reader still adding: its requests are not imported
	}
}

// Add queues one request for the import, and waits while the queue holds
// WindowBytes of text. An error is the import's (ctx ended, a bank
// could not be checked or created, or the store failed): stop reading.
func (im *Importer) Add(r memory.RetainRequest) error {
	im.mu.Lock()
	for !im.ended && im.queued > 0 && im.queued+r.TextBytes() > im.limit && im.ctx.Err() == nil {
		im.cond.Wait()
	}
	if err := im.failure(); err != nil {
		im.mu.Unlock()
		return err
	}
	im.queued += r.TextBytes()
	im.read++
	im.mu.Unlock()
	select {
	case im.queue <- r:
		return nil
	case <-im.done:
		im.mu.Lock()
		defer im.mu.Unlock()
		return im.failure()
	}
}

// failure returns the import's error once it has ended with one, or
// ctx's, and marks the Importer failed. im.mu is held.
func (im *Importer) failure() error {
	err := im.ctx.Err()
	if im.ended && im.err != nil {
		err = im.err
	}
	if err != nil {
		im.failed = true
	}
	return err
}

// Finish ends the input, waits for the import of what was added and
// returns its report. err is the reader's error, or Add's: the import of
// what was added still completes unless ctx ended or the import failed;
// Finish returns err, or the import's error when err is nil.
func (im *Importer) Finish(err error) (*ImportReport, error) {
	if !im.closed {
		im.closed = true
		close(im.queue)
	}
	<-im.done
	if err != nil {
		return &im.rep, err
	}
	return &im.rep, im.err
}

// Failed reports whether the import failed (the error Add or Finish
// returned is the import's, not the reader's).
func (im *Importer) Failed() bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.failed || (im.ended && im.err != nil)
}

package mnemo

// jobRunner runs queued jobs (retain --async) in the background.
// TODO(jobs/sessions helper): implement.
type jobRunner struct{}

// sessionBuffer turns streamed chat messages into retained documents.
// TODO(jobs/sessions helper): implement.
type sessionBuffer struct{}

// startBackground starts the job worker and the session idle trigger.
func (e *Engine) startBackground(cfg Config) {}

// stopBackground stops what startBackground started and waits for it.
func (e *Engine) stopBackground() error { return nil }

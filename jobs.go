package mnemo

// jobRunner runs queued jobs (retain --async) in the background.
// TODO(jobs/sessions helper): implement.
type jobRunner struct{}

// sessionBuffer turns streamed chat messages into retained documents.
// TODO(jobs/sessions helper): implement.
type sessionBuffer struct{}

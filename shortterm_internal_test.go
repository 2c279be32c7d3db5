package mnemo

import "context"

// FlushAccess gives the package's external tests the write of recall's
// pending access records, which the background loop makes every
// Config.AccessFlush: a test with an injected clock cannot wait for it.
func FlushAccess(e *Engine) error { return e.access.flush(context.Background()) }

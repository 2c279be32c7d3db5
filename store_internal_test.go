package mnemo

import "github.com/mnemo-ai/mnemo/memory"

// StoreOf gives the package's external tests the engine's store, to
// check what a façade call wrote. Programs have no such door: whatever
// they need of the store is a named Engine call.
func StoreOf(e *Engine) memory.Store { return e.store }

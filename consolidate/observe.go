package consolidate

// ObserveDefaults holds the numbers of the per-fact observation pass, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type ObserveDefaults struct{}

// defaultObserveDefaults returns the seeds' numbers for the per-fact observation pass.
func defaultObserveDefaults() ObserveDefaults { return ObserveDefaults{} }

package consolidate

// ShortTermDefaults holds the numbers of short-term memory, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type ShortTermDefaults struct{}

// defaultShortTermDefaults returns the seeds' numbers for short-term memory.
func defaultShortTermDefaults() ShortTermDefaults { return ShortTermDefaults{} }

package consolidate

// TemporalDefaults holds the numbers of the temporal pass, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type TemporalDefaults struct{}

// defaultTemporalDefaults returns the seeds' numbers for the temporal pass.
func defaultTemporalDefaults() TemporalDefaults { return TemporalDefaults{} }

package consolidate

// DreamDefaults holds the numbers of the dream pass, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type DreamDefaults struct{}

// defaultDreamDefaults returns the seeds' numbers for the dream pass.
func defaultDreamDefaults() DreamDefaults { return DreamDefaults{} }

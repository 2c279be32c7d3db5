package consolidate

// GroupDefaults holds the numbers of group consolidation, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type GroupDefaults struct{}

// defaultGroupDefaults returns the seeds' numbers for group consolidation.
func defaultGroupDefaults() GroupDefaults { return GroupDefaults{} }

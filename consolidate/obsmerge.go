package consolidate

// ObservationMergeDefaults holds the numbers of the observation merge, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type ObservationMergeDefaults struct{}

// defaultObservationMergeDefaults returns the seeds' numbers for the observation merge.
func defaultObservationMergeDefaults() ObservationMergeDefaults { return ObservationMergeDefaults{} }

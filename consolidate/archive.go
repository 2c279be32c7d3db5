package consolidate

// ArchiveDefaults holds the numbers of archival, each a named default with
// the seed it comes from. Its fields carry json tags: the names a bank's
// overrides use (snake_case, prefixed by the pass).
type ArchiveDefaults struct{}

// defaultArchiveDefaults returns the seeds' numbers for archival.
func defaultArchiveDefaults() ArchiveDefaults { return ArchiveDefaults{} }

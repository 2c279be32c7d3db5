package retain

// Canonical exposes canonical to the external tests: the default item id
// of a request is its content hash.
var Canonical = canonical

// SplitSegments is splitSegments, for the tests that need to know where a
// document is cut.
var SplitSegments = splitSegments

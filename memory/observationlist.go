package memory

import "context"

// ObservationLister is implemented by stores that can list a bank's
// observations (both built-in stores do), for `mnemo observations` and
// the HTTP API. Detect it by type assertion, as [ObservationStore].
type ObservationLister interface {
	// ListObservations returns the observations of a bank, every status,
	// newest first (by CreatedAt, then by id descending), at most limit
	// (0: all), embeddings not loaded. An unknown bank is ENOTFOUND; a
	// negative limit EINVALID.
	ListObservations(ctx context.Context, bankID string, limit int) ([]*Observation, error)
}

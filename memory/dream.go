package memory

import (
	"context"
	"unicode/utf8"
)

// Dreams keeps a bank's dreams ([Dream]): the dream pass of consolidation
// writes them, `mnemo dreams` and the HTTP API list them. Recall never
// reads them (seed 000: dreams "live in a separate table and don't feed
// back into the recall pipeline"): no search of a store ever returns a
// dream. Both built-in stores have it; detect it by type assertion, as
// [ObservationStore].
type Dreams interface {
	// PutDreams stores dreams in a bank, all in one transaction; a dream
	// of an id the bank holds replaces it whole. Each must pass
	// [ValidateDreams] (EINVALID, nothing stored); an unknown bank is
	// ENOTFOUND.
	PutDreams(ctx context.Context, bankID string, ds []*Dream) error
	// ListDreams returns a bank's dreams, newest first (by CreatedAt,
	// then by id descending), at most limit (0: all), embeddings loaded:
	// the dream pass compares new dreams with the latest ones. An
	// unknown bank is ENOTFOUND, a negative limit EINVALID.
	ListDreams(ctx context.Context, bankID string, limit int) ([]*Dream, error)
}

// MaxDreamBytes bounds a dream's bridge and its insight each: a model's
// answer, not a document.
const MaxDreamBytes = 4 << 10

// ValidateDreams checks dreams before a store writes them: each has an
// id, a bridge and an insight, valid UTF-8 of at most MaxDreamBytes, and
// a creation time; EINVALID names the first that does not.
func ValidateDreams(ds []*Dream) error {
	for _, d := range ds {
		switch {
		case d == nil || d.ID == "":
			return Errorf(EINVALID, "a dream without an id")
		case d.Bridge == "" || d.Insight == "":
			return Errorf(EINVALID, "dream %s needs a bridge and an insight", d.ID)
		case !utf8.ValidString(d.Bridge) || !utf8.ValidString(d.Insight):
			return Errorf(EINVALID, "dream %s is not valid UTF-8", d.ID)
		case len(d.Bridge) > MaxDreamBytes || len(d.Insight) > MaxDreamBytes:
			return Errorf(EINVALID, "dream %s: bridge and insight are at most %d bytes each", d.ID, MaxDreamBytes)
		case d.CreatedAt.IsZero():
			return Errorf(EINVALID, "dream %s has no creation time", d.ID)
		}
	}
	return nil
}

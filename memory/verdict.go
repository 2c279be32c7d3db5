package memory

import (
	"context"
	"time"
)

// Verdict is an LLM's judgement on a pair of similar facts in the fact
// merge (seed 000 "Fact Merge": same or different).
type Verdict string

const (
	// VerdictSame: the two facts say one thing; one is merged into the
	// other.
	VerdictSame Verdict = "same"
	// VerdictDifferent: the two facts are distinct; the pair is never
	// asked about again.
	VerdictDifferent Verdict = "different"
)

// FactPair is an unordered pair of facts, stored ordered: A < B.
type FactPair struct{ A, B string }

// NewFactPair returns the pair of x and y with the smaller id first, so
// that (x, y) and (y, x) are one key.
func NewFactPair(x, y string) FactPair {
	if y < x {
		x, y = y, x
	}
	return FactPair{A: x, B: y}
}

// PairVerdict is the verdict on one pair, with the time it was given.
type PairVerdict struct {
	Pair    FactPair
	Verdict Verdict
	At      time.Time
}

// MergeVerdicts remembers the fact merge's verdicts on pairs of facts,
// so that a pair judged different is not put to the LLM again in a later
// run. A verdict names two fact ids and nothing of their text.
type MergeVerdicts interface {
	// SavePairVerdicts stores vs, replacing the verdict of a pair already
	// judged. A pair must be ordered (A < B, both set) and its verdict
	// known, else EINVALID and nothing is stored. The facts need not
	// exist. An unknown bank is ENOTFOUND.
	SavePairVerdicts(ctx context.Context, bankID string, vs []PairVerdict) error
	// PairVerdicts returns the stored verdicts of the given pairs, by
	// pair; pairs never judged are absent. Forgetting a fact forgets the
	// verdicts that name it; deleting a bank deletes its verdicts. An
	// unknown bank is ENOTFOUND.
	PairVerdicts(ctx context.Context, bankID string, pairs []FactPair) (map[FactPair]PairVerdict, error)
}

// CheckPairVerdict is the rule every store applies before storing v:
// an ordered pair of two ids and a known verdict, else EINVALID.
func CheckPairVerdict(v PairVerdict) error {
	switch {
	case v.Pair.A == "" || v.Pair.B == "":
		return Errorf(EINVALID, "verdict: an empty fact id")
	case v.Pair.A >= v.Pair.B:
		return Errorf(EINVALID, "verdict: pair (%s, %s) is not ordered", v.Pair.A, v.Pair.B)
	case v.Verdict != VerdictSame && v.Verdict != VerdictDifferent:
		return Errorf(EINVALID, "verdict %q: want same or different", v.Verdict)
	}
	return nil
}

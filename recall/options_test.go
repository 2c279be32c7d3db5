package recall

import "testing"

// TestOptions_Resolved: a zero option is its default, a negative one is
// off (0) where a signal can be off and the default where it cannot, and
// a positive one stays.
func TestOptions_Resolved(t *testing.T) {
	t.Run("Zero", func(t *testing.T) {
		got := Options{}.resolved()
		want := Options{Weights: DefaultWeights, RRFK: DefaultRRFK, Candidates: DefaultCandidates,
			KeywordFloor: DefaultKeywordFloor, RerankDepth: DefaultRerankDepth,
			RerankCoverage: DefaultRerankCoverage, RerankNeighbour: DefaultRerankNeighbour,
			DocumentShare: DefaultDocumentShare, NeighbourShare: DefaultNeighbourShare,
			NeighbourRadius: DefaultNeighbourRadius, NeighbourDecay: DefaultNeighbourDecay,
			SpeakerBoost: DefaultSpeakerBoost, KindWeight: DefaultKindWeight, CountSpread: DefaultCountSpread}
		if got != want {
			t.Errorf("Options{}.resolved() = %+v, want %+v", got, want)
		}
		if d := DefaultOptions(); d != want {
			t.Errorf("DefaultOptions() = %+v, want %+v", d, want)
		}
	})
	t.Run("Negative", func(t *testing.T) {
		got := Options{RRFK: -1, Candidates: -1, RerankDepth: -1, KeywordFloor: -1, RerankCoverage: -1,
			RerankNeighbour: -1, DocumentShare: -1, NeighbourShare: -1, NeighbourRadius: -1,
			NeighbourDecay: -1, SpeakerBoost: -1, KindWeight: -1, CountSpread: -1}.resolved()
		want := Options{Weights: DefaultWeights, RRFK: DefaultRRFK, Candidates: DefaultCandidates, RerankDepth: DefaultRerankDepth}
		if got != want {
			t.Errorf("negative options resolved = %+v, want %+v", got, want)
		}
	})
	t.Run("Set", func(t *testing.T) {
		in := Options{Weights: Weights{Keyword: 1}, RRFK: 10, Candidates: 7, RerankDepth: 3, KeywordFloor: 0.2,
			RerankCoverage: 0.1, RerankNeighbour: 0.2, DocumentShare: 0.3, NeighbourShare: 0.4,
			NeighbourRadius: 5, NeighbourDecay: 0.6, SpeakerBoost: 0.7, KindWeight: 0.8, CountSpread: 0.9}
		if got := in.resolved(); got != in {
			t.Errorf("set options resolved = %+v, want them as they are", got)
		}
	})
}

package memory_test

import (
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestFact_Tier(t *testing.T) {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	long := memory.Fact{Text: "Alice lives in Lisbon."}
	short := memory.Fact{Text: "Alice is at the dentist.", ExpiresAt: at}
	if long.ShortTerm() || long.Tier() != memory.TierLongTerm || long.ExpiresBy(at.AddDate(100, 0, 0)) {
		t.Errorf("long-term fact: ShortTerm %v, Tier %q, want long-term and never expiring", long.ShortTerm(), long.Tier())
	}
	if !short.ShortTerm() || short.Tier() != memory.TierShortTerm {
		t.Errorf("short-term fact: ShortTerm %v, Tier %q", short.ShortTerm(), short.Tier())
	}
	for _, c := range []struct {
		t    time.Time
		want bool
	}{{at.Add(-time.Microsecond), false}, {at, true}, {at.Add(time.Hour), true}} {
		if got := short.ExpiresBy(c.t); got != c.want {
			t.Errorf("ExpiresBy(%v): got %v, want %v", c.t, got, c.want)
		}
	}
	if got, want := memory.FormatFact(&short), "- Alice is at the dentist. (short-term)"; got != want {
		t.Errorf("FormatFact(short-term) = %q, want %q", got, want)
	}
	// A cursor of a listing with ExpiresBy belongs to it alone.
	q := memory.FactQuery{Limit: 1}
	c := q.NextCursor(7)
	q2 := memory.FactQuery{Limit: 1, ExpiresBy: at, Cursor: c}
	if _, err := q2.AfterSeq(); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("a cursor of another listing: got %v, want EINVALID", err)
	}
	q2.Cursor = q2.NextCursor(7)
	if seq, err := q2.AfterSeq(); err != nil || seq != 7 {
		t.Errorf("its own cursor: got %d, %v, want 7", seq, err)
	}
}

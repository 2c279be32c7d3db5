package consolidate

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// fakeMergeStore is a MergeStore over a slice of facts, newest last, that
// pages newest first with a numeric cursor and records merges.
type fakeMergeStore struct {
	facts  []*memory.Fact
	refs   []memory.EntityRef
	merges [][2]string
}

// ListFacts pages through the active facts, newest first.
func (s *fakeMergeStore) ListFacts(_ context.Context, _ string, q memory.FactQuery) (*memory.FactPage, error) {
	var active []*memory.Fact
	for i := len(s.facts) - 1; i >= 0; i-- {
		if s.facts[i].Status == memory.StatusActive {
			active = append(active, s.facts[i])
		}
	}
	start, _ := strconv.Atoi(q.Cursor)
	end := min(start+q.Limit, len(active))
	page := &memory.FactPage{Facts: active[start:end]}
	if end < len(active) {
		page.Next = strconv.Itoa(end)
	}
	return page, nil
}

// EntityRefs returns the refs of ids.
func (s *fakeMergeStore) EntityRefs(_ context.Context, _ string, ids []string) ([]memory.EntityRef, error) {
	var out []memory.EntityRef
	for _, r := range s.refs {
		if slices.Contains(ids, r.FactID) {
			out = append(out, r)
		}
	}
	return out, nil
}

// MergeFact marks dup superseded by keeper.
func (s *fakeMergeStore) MergeFact(_ context.Context, _ string, dup, keeper string, _ time.Time) (bool, error) {
	for _, f := range s.facts {
		if f.ID == dup {
			if f.Status != memory.StatusActive {
				return false, nil
			}
			f.Status, f.SupersededBy = memory.StatusSuperseded, keeper
			s.merges = append(s.merges, [2]string{dup, keeper})
			return true, nil
		}
	}
	return false, memory.Errorf(memory.ENOTFOUND, "no fact %s", dup)
}

// add appends a fact stored at minute seq.
func (s *fakeMergeStore) add(id, speaker, text string, accesses int) {
	seq := int64(len(s.facts) + 1)
	s.facts = append(s.facts, &memory.Fact{ID: id, Seq: seq, Speaker: speaker, Text: text, AccessCount: accesses,
		Status: memory.StatusActive, CreatedAt: time.Date(2026, 1, 1, 0, int(seq), 0, 0, time.UTC)})
}

func TestMergeDuplicates_Keeper(t *testing.T) {
	for _, c := range []struct {
		name string
		refs map[string]int
		acc  map[string]int
		want string
	}{
		// a, b, c hold the same fact; c is the newest.
		{"Newer", nil, nil, "c"},
		{"MoreAccesses", nil, map[string]int{"a": 2}, "a"},
		{"MoreRefsBeatAccesses", map[string]int{"b": 1}, map[string]int{"a": 5}, "b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &fakeMergeStore{}
			s.add("a", "Ann", "I adopted a cat named Pip.", c.acc["a"])
			s.add("b", "ann", "i adopted  a cat named pip", c.acc["b"])
			s.add("c", "Ann", "  I adopted a cat named Pip!!", c.acc["c"])
			for id, n := range c.refs {
				for i := range n {
					s.refs = append(s.refs, memory.EntityRef{FactID: id, EntityID: "e" + strconv.Itoa(i)})
				}
			}
			res, err := MergeDuplicates(t.Context(), s, "b", MergeOptions{PageSize: 2})
			if err != nil {
				t.Fatal(err)
			}
			// Three facts, one group, the two others merged into the keeper.
			if got, want := *res, (MergeResult{Scanned: 3, Groups: 1, Merged: 3 - 1}); got != want {
				t.Errorf("result: got %+v, want %+v", got, want)
			}
			for _, m := range s.merges {
				if m[1] != c.want {
					t.Errorf("merge %s into %s: want keeper %s", m[0], m[1], c.want)
				}
			}
		})
	}
}

// TestMergeDuplicates_EventDays checks that the same sentence about an
// event on two days stays two facts, while a state said on two days, or
// an event said twice about one day, merges.
func TestMergeDuplicates_EventDays(t *testing.T) {
	s := &fakeMergeStore{}
	day := func(d int) time.Time { return time.Date(2026, 3, d, 9, 0, 0, 0, time.UTC) }
	for _, f := range []struct {
		id   string
		kind memory.FactKind
		at   time.Time
	}{
		{"run1", memory.KindExperience, day(1)},
		{"run2", memory.KindExperience, day(2)},                    // another day: another run
		{"run3", memory.KindExperience, day(2).Add(3 * time.Hour)}, // same day as run2
		{"tea1", memory.KindWorld, day(1)},
		{"tea2", memory.KindWorld, day(5)}, // a state: the same fact
	} {
		text := "I went running today."
		if f.kind == memory.KindWorld {
			text = "I love tea."
		}
		s.add(f.id, "Ann", text, 0)
		last := s.facts[len(s.facts)-1]
		last.Kind, last.OccurredStart = f.kind, f.at
	}
	if _, err := MergeDuplicates(t.Context(), s, "b", MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range s.merges {
		got[m[0]] = m[1]
	}
	if len(got) != 2 || got["run2"] == "" && got["run3"] == "" || got["tea1"] == "" && got["tea2"] == "" || got["run1"] != "" {
		t.Errorf("merges %v: want run2/run3 merged, tea1/tea2 merged, run1 kept apart", s.merges)
	}
}

func TestMergeDuplicates_NotSame(t *testing.T) {
	s := &fakeMergeStore{}
	s.add("a", "Ann", "I ran 5 km today.", 0)
	s.add("b", "Bob", "I ran 5 km today.", 0)   // another speaker
	s.add("c", "Ann", "I ran 6 km today.", 0)   // a number changed
	s.add("d", "Ann", "I ran 5.5 km today.", 0) // punctuation inside
	s.add("e", "Ann", "I ran 5 km today?", 0)   // end punctuation only: same
	s.add("f", "", "", 0)                       // empty text: never a duplicate
	s.add("g", "", "", 0)
	res, err := MergeDuplicates(t.Context(), s, "b", MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]string{{"a", "e"}}; !slices.Equal(s.merges, want) {
		t.Errorf("merges: got %v, want %v", s.merges, want)
	}
	if res.Scanned != 7 || res.Groups != 1 || res.Merged != 1 {
		t.Errorf("result: got %+v, want 7 scanned, 1 group, 1 merged", res)
	}
	again, err := MergeDuplicates(t.Context(), s, "b", MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Groups != 0 || again.Merged != 0 || again.Scanned != 7-1 {
		t.Errorf("second run: got %+v, want 6 scanned and nothing merged", again)
	}
}

func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct {
		s1, t1, s2, t2 string
		same           bool
	}{
		{"Ann", "I love tea.", "ann", "  i LOVE\ttea ", true},
		{"Ann", "«I love tea»", "Ann", "I love tea", true},
		{"Ann", "I love tea", "Bob", "I love tea", false},
		{"Ann", "I love 2 teas", "Ann", "I love 3 teas", false},
		{"Ann", "It costs 5 €", "Ann", "It costs 5", true}, // a symbol at an end goes
		{"Ann", "It costs $5", "Ann", "It costs 5", false}, // inside, it stays
		{"Ann", "I love tea", "Ann", "I love, tea", false},
	} {
		a, b := memory.DuplicateKey(c.s1, c.t1), memory.DuplicateKey(c.s2, c.t2)
		if (a == b) != c.same {
			t.Errorf("DuplicateKey(%q, %q) vs (%q, %q): same %v, want %v", c.s1, c.t1, c.s2, c.t2, a == b, c.same)
		}
	}
}

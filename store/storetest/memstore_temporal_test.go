package storetest

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var (
	_ memory.EntityTimelines  = (*memStore)(nil)
	_ memory.ImportanceScores = (*memStore)(nil)
)

// memTemporal is a bank's entity marks and importance marks. It is
// shared by a bank's clones (memBank.clone): only these methods change
// it, under the store's lock.
type memTemporal struct {
	marks map[[2]string]int64 // (pass, entity) → seq
	// scored holds the facts SetImportance scored, by id and Seq: a
	// fact written again under the same id has a new Seq and is
	// unscored.
	scored map[memScoredKey]bool
}

type memScoredKey struct {
	id  string
	seq int64
}

func (b *memBank) timelines() *memTemporal {
	if b.temporal == nil {
		b.temporal = &memTemporal{marks: map[[2]string]int64{}, scored: map[memScoredKey]bool{}}
	}
	return b.temporal
}

// recent returns the active facts of b that mention entity with an event
// time in [from, to].
func (b *memBank) recent(entity string, from, to time.Time) []*memory.Fact {
	var out []*memory.Fact
	for r := range b.refs {
		if r.EntityID != entity {
			continue
		}
		if f, ok := b.facts[r.FactID]; ok && f.Status == memory.StatusActive && memory.InWindow(f.EventTime(), from, to) {
			out = append(out, f)
		}
	}
	return out
}

// BusyEntities implements memory.EntityTimelines.
func (s *memStore) BusyEntities(_ context.Context, bankID string, q memory.BusyQuery) ([]memory.BusyEntity, error) {
	q, err := q.Validate()
	if err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) ([]memory.BusyEntity, error) {
		out := []memory.BusyEntity{}
		for id, e := range b.entities {
			fs := b.recent(id, q.From, q.To)
			if len(fs) < q.MinFacts {
				continue
			}
			var newest int64
			for _, f := range fs {
				newest = max(newest, f.Seq)
			}
			if q.Pass != "" && b.timelines().marks[[2]string{q.Pass, id}] >= newest {
				continue
			}
			out = append(out, memory.BusyEntity{ID: id, Name: e.Name, Type: e.Type, Facts: len(fs), NewestSeq: newest})
		}
		slices.SortFunc(out, func(x, y memory.BusyEntity) int {
			return cmp.Or(cmp.Compare(y.Facts, x.Facts), cmp.Compare(x.ID, y.ID))
		})
		return out[:min(len(out), q.Limit)], nil
	})
}

// EntityTimeline implements memory.EntityTimelines.
func (s *memStore) EntityTimeline(_ context.Context, bankID, entityID string, from, to time.Time, limit int) ([]*memory.Fact, error) {
	limit, err := memory.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) ([]*memory.Fact, error) {
		fs := b.recent(entityID, from, to)
		slices.SortFunc(fs, func(x, y *memory.Fact) int {
			return cmp.Or(x.EventTime().Compare(y.EventTime()), cmp.Compare(x.Seq, y.Seq))
		})
		fs = fs[max(0, len(fs)-limit):]
		out := make([]*memory.Fact, len(fs))
		for i, f := range fs {
			c := *f
			c.Embedding = nil
			out[i] = &c
		}
		return out, nil
	})
}

// MarkEntities implements memory.EntityTimelines.
func (s *memStore) MarkEntities(_ context.Context, bankID, pass string, marks []memory.EntityMark) error {
	if err := memory.CheckMarks(pass, marks); err != nil {
		return err
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		for _, m := range marks {
			k := [2]string{pass, m.EntityID}
			b.timelines().marks[k] = max(b.timelines().marks[k], m.Seq)
		}
		return struct{}{}, nil
	})
	return err
}

// UnscoredFacts implements memory.ImportanceScores.
func (s *memStore) UnscoredFacts(_ context.Context, bankID string, limit int) ([]*memory.Fact, error) {
	limit, err := memory.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	return with(s, bankID, func(b *memBank) ([]*memory.Fact, error) {
		var fs []*memory.Fact
		for _, f := range b.facts {
			if f.Status == memory.StatusActive && !b.timelines().scored[memScoredKey{f.ID, f.Seq}] {
				fs = append(fs, f)
			}
		}
		slices.SortFunc(fs, func(x, y *memory.Fact) int { return cmp.Compare(x.Seq, y.Seq) })
		fs = fs[:min(len(fs), limit)]
		out := make([]*memory.Fact, len(fs))
		for i, f := range fs {
			c := *f
			c.Embedding = nil
			out[i] = &c
		}
		return out, nil
	})
}

// SetImportance implements memory.ImportanceScores.
func (s *memStore) SetImportance(_ context.Context, bankID string, scores map[string]float64, _ time.Time) error {
	if err := memory.CheckImportance(scores); err != nil {
		return err
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		for id, v := range scores {
			f, ok := b.facts[id]
			if !ok {
				continue
			}
			c := *f
			c.Importance = v
			b.facts[id] = &c
			b.timelines().scored[memScoredKey{id, f.Seq}] = true
		}
		return struct{}{}, nil
	})
	return err
}

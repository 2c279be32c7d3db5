package storetest

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

var _ memory.StandingAnswers = (*memStore)(nil)

func (s *memStore) PinQuestion(_ context.Context, bankID string, q *memory.StandingQuestion) error {
	if err := memory.ValidateStandingQuestion(q); err != nil {
		return err
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		if _, ok := b.standing[q.ID]; ok {
			return struct{}{}, memory.Errorf(memory.ECONFLICT, "question %s is pinned already", q.ID)
		}
		if b.standing == nil {
			b.standing = map[string]*memory.StandingQuestion{}
		}
		b.standing[q.ID] = &memory.StandingQuestion{ID: q.ID, BankID: bankID, Question: q.Question, CreatedAt: q.CreatedAt}
		return struct{}{}, nil
	})
	return err
}

func (s *memStore) StandingQuestions(_ context.Context, bankID string) ([]*memory.StandingQuestion, error) {
	return with(s, bankID, func(b *memBank) ([]*memory.StandingQuestion, error) {
		out := []*memory.StandingQuestion{}
		for _, q := range b.standing {
			c := *q
			c.MemoryIDs = slices.Clone(q.MemoryIDs)
			out = append(out, &c)
		}
		slices.SortFunc(out, func(x, y *memory.StandingQuestion) int {
			return cmp.Or(x.CreatedAt.Compare(y.CreatedAt), cmp.Compare(x.ID, y.ID))
		})
		return out, nil
	})
}

func (s *memStore) StandingQuestion(_ context.Context, bankID, id string) (*memory.StandingQuestion, error) {
	return with(s, bankID, func(b *memBank) (*memory.StandingQuestion, error) {
		q, ok := b.standing[id]
		if !ok {
			return nil, memory.Errorf(memory.ENOTFOUND, "no pinned question %s in bank %q", id, bankID)
		}
		c := *q
		c.MemoryIDs = slices.Clone(q.MemoryIDs)
		return &c, nil
	})
}

func (s *memStore) SetStandingAnswer(_ context.Context, bankID, id, answer string, memoryIDs []string, at time.Time) error {
	if err := memory.ValidateStandingAnswer(answer, memoryIDs, at); err != nil {
		return err
	}
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		q, ok := b.standing[id]
		if !ok {
			return struct{}{}, memory.Errorf(memory.ENOTFOUND, "no pinned question %s in bank %q", id, bankID)
		}
		c := *q
		c.Answer, c.MemoryIDs, c.AnsweredAt = answer, slices.Clone(memoryIDs), at
		b.standing[id] = &c
		return struct{}{}, nil
	})
	return err
}

func (s *memStore) UnpinQuestion(_ context.Context, bankID, id string) error {
	_, err := with(s, bankID, func(b *memBank) (struct{}, error) {
		if _, ok := b.standing[id]; !ok {
			return struct{}{}, memory.Errorf(memory.ENOTFOUND, "no pinned question %s in bank %q", id, bankID)
		}
		delete(b.standing, id)
		return struct{}{}, nil
	})
	return err
}

package storetest

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

func (s *memStore) Relations(ctx context.Context, bankID string, q memory.RelationQuery) ([]*memory.Relation, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) SupersededBy(ctx context.Context, bankID string, factIDs []string) ([]*memory.Fact, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) SimilarEntities(ctx context.Context, bankID string, t memory.EntityType, vec []float32, k int, min float64) ([]memory.EntityHit, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}

package sqlite

import (
	"context"

	"github.com/mnemo-ai/mnemo/memory"
)

func (s *Store) Relations(ctx context.Context, bankID string, q memory.RelationQuery) ([]*memory.Relation, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *Store) SupersededBy(ctx context.Context, bankID string, factIDs []string) ([]*memory.Fact, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *Store) SimilarEntities(ctx context.Context, bankID string, t memory.EntityType, vec []float32, k int, min float64) ([]memory.EntityHit, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}

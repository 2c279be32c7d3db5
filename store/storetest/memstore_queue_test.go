package storetest

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// TODO(jobs/sessions helper): implement. Temporary stubs so the tree builds.

func (s *memStore) Watermark(ctx context.Context, bankID, source string) (*memory.Watermark, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) EnqueueJob(ctx context.Context, j *memory.Job) error {
	return memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) ClaimJob(ctx context.Context, at time.Time) (*memory.Job, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) FinishJob(ctx context.Context, j *memory.Job) error {
	return memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) Job(ctx context.Context, bankID, id string) (*memory.Job, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) Jobs(ctx context.Context, bankID string, limit int) ([]*memory.Job, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) RequeueJobs(ctx context.Context) (int, error) {
	return 0, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) AppendSession(ctx context.Context, bankID, session string, msgs []memory.SessionMessage) (*memory.SessionState, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) Session(ctx context.Context, bankID, session string) ([]memory.SessionMessage, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}
func (s *memStore) Sessions(ctx context.Context, bankID string) ([]memory.SessionState, error) {
	return nil, memory.Errorf(memory.EINTERNAL, "not implemented")
}

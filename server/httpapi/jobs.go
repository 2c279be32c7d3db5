package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/wire"
)

type jobsInput struct {
	Bank  string `path:"bank" doc:"bank name"`
	Limit int    `query:"limit" minimum:"0" doc:"at most this many, newest first; 0 means all"`
}

type jobInput struct {
	Bank string `path:"bank" doc:"bank name"`
	ID   string `path:"id" doc:"job id"`
}

type jobListOutput struct{ Body wire.JobList }

type jobOutput struct{ Body wire.Job }

// registerJobs adds the list of a bank's jobs and one job's status.
func (s *Server) registerJobs() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/jobs", "listJobs", "List a bank's jobs, newest first", ScopeRead, "jobs"),
		func(ctx context.Context, in *jobsInput) (*jobListOutput, error) {
			if _, err := s.eng.Bank(ctx, in.Bank); err != nil {
				return nil, s.fail(err)
			}
			jobs, err := s.eng.Jobs(ctx, in.Bank, in.Limit)
			if err != nil {
				return nil, s.fail(err)
			}
			out := wire.JobList{Jobs: make([]wire.Job, 0, len(jobs))}
			for _, j := range jobs {
				out.Jobs = append(out.Jobs, wire.NewJob(j))
			}
			return &jobListOutput{Body: out}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/jobs/{id}", "getJob", "Get a job's status and result", ScopeRead, "jobs"),
		func(ctx context.Context, in *jobInput) (*jobOutput, error) {
			j, err := s.eng.Job(ctx, in.Bank, in.ID)
			if err != nil {
				return nil, s.fail(err)
			}
			return &jobOutput{Body: wire.NewJob(j)}, nil
		})
}

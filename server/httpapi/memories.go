package httpapi

import (
	"context"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/mnemo-ai/mnemo/wire"
)

type retainInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.Retain
}

// retainOutput is a wire.RetainResult (200, sync) or a wire.Job (202,
// async).
type retainOutput struct {
	Status int
	Body   any
}

// registerMemories adds retain: sync answers what was stored, async
// queues the item and answers 202 with the job.
func (s *Server) registerMemories() {
	o := op(http.MethodPost, "/v1/banks/{bank}/memories", "retain",
		"Remember an item: 200 with what was stored, or with async 202 with the queued job", ScopeWrite, "memories")
	register(s, o, func(ctx context.Context, in *retainInput) (*retainOutput, error) {
		req, err := in.Body.MemoryRequest(in.Bank)
		if err != nil {
			return nil, s.fail(err)
		}
		start := time.Now()
		if in.Body.Async {
			j, err := s.eng.RetainAsync(ctx, req)
			s.metrics.retains.WithLabelValues("async", outcome(err)).Observe(time.Since(start).Seconds())
			if err != nil {
				return nil, s.fail(err)
			}
			return &retainOutput{Status: http.StatusAccepted, Body: wire.NewJob(j)}, nil
		}
		res, err := s.eng.Retain(ctx, req)
		s.metrics.retains.WithLabelValues("sync", outcome(err)).Observe(time.Since(start).Seconds())
		if err != nil {
			return nil, s.fail(err)
		}
		return &retainOutput{Status: http.StatusOK, Body: wire.NewRetainResult(res)}, nil
	})
	// The body's Go type is any: say in the document what each status holds.
	reg := s.api.OpenAPI().Components.Schemas
	post := s.api.OpenAPI().Paths["/v1/banks/{bank}/memories"].Post
	post.Responses["200"] = &huma.Response{Description: "stored: what the retain did", Content: map[string]*huma.MediaType{
		"application/json": {Schema: reg.Schema(reflect.TypeFor[wire.RetainResult](), true, "RetainResult")}}}
	post.Responses["202"] = &huma.Response{Description: "queued (async): the job", Content: map[string]*huma.MediaType{
		"application/json": {Schema: reg.Schema(reflect.TypeFor[wire.Job](), true, "Job")}}}
}

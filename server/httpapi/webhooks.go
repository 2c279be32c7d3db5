package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/wire"
)

type createWebhookInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.CreateWebhook
}

type webhookInput struct {
	Bank string `path:"bank" doc:"bank name"`
	ID   string `path:"id" doc:"webhook id"`
}

type webhookOutput struct{ Body wire.Webhook }

type webhookListOutput struct{ Body wire.WebhookList }

// registerWebhooks adds a bank's webhooks (admin: their secrets sign
// deliveries) and their delivery log.
func (s *Server) registerWebhooks() {
	register(s, op(http.MethodPost, "/v1/banks/{bank}/webhooks", "createWebhook", "Subscribe a URL to a bank's events; the answer holds the signing secret", ScopeAdmin, "webhooks"),
		func(ctx context.Context, in *createWebhookInput) (*webhookOutput, error) {
			w, err := s.eng.CreateWebhook(ctx, in.Bank, in.Body.URL, in.Body.Events)
			if err != nil {
				return nil, s.fail(err)
			}
			return &webhookOutput{Body: wire.NewWebhook(w)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/webhooks", "listWebhooks", "List a bank's webhooks, oldest first", ScopeAdmin, "webhooks"),
		func(ctx context.Context, in *bankPath) (*webhookListOutput, error) {
			ws, err := s.eng.Webhooks(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			out := wire.WebhookList{Webhooks: make([]wire.Webhook, 0, len(ws))}
			for _, w := range ws {
				out.Webhooks = append(out.Webhooks, wire.NewWebhook(w))
			}
			return &webhookListOutput{Body: out}, nil
		})
	register(s, op(http.MethodDelete, "/v1/banks/{bank}/webhooks/{id}", "deleteWebhook", "Remove a webhook (its queued deliveries are dropped)", ScopeAdmin, "webhooks"),
		func(ctx context.Context, in *webhookInput) (*deletedOutput, error) {
			if err := s.eng.DeleteWebhook(ctx, in.Bank, in.ID); err != nil {
				return nil, s.fail(err)
			}
			return &deletedOutput{Body: wire.Deleted{Deleted: in.ID}}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/webhooks/deliveries", "listWebhookDeliveries", "A bank's webhook delivery log: newest first, with status, attempts and the last error", ScopeAdmin, "webhooks"),
		func(ctx context.Context, in *jobsInput) (*jobListOutput, error) {
			jobs, err := s.eng.WebhookDeliveries(ctx, in.Bank, in.Limit)
			if err != nil {
				return nil, s.fail(err)
			}
			out := wire.JobList{Jobs: make([]wire.Job, 0, len(jobs))}
			for _, j := range jobs {
				out.Jobs = append(out.Jobs, wire.NewJob(j))
			}
			return &jobListOutput{Body: out}, nil
		})
}

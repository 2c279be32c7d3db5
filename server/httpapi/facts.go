package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

type factsInput struct {
	Bank       string   `path:"bank" doc:"bank name"`
	Kinds      []string `query:"kinds" doc:"fact kinds to keep (world, experience), comma-separated"`
	Categories []string `query:"categories" doc:"categories to keep, comma-separated"`
	Tags       []string `query:"tags" doc:"keep facts with any of these tags, comma-separated"`
	Statuses   []string `query:"statuses" doc:"statuses to keep (active, superseded, archived, quarantined); default all"`
	From       string   `query:"from" doc:"event time lower bound (inclusive)"`
	To         string   `query:"to" doc:"event time upper bound (exclusive)"`
	Speaker    string   `query:"speaker" doc:"only this speaker's facts"`
	Source     string   `query:"source" doc:"only the facts of items from this source (chat, note, email, …)"`
	Limit      int      `query:"limit" minimum:"0" doc:"page size; 0 means the default"`
	Cursor     string   `query:"cursor" doc:"the previous page's next"`
}

type factInput struct {
	Bank string `path:"bank" doc:"bank name"`
	ID   string `path:"id" doc:"fact id"`
}

type invalidateInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.InvalidateFacts
}

type restoreInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.FactIDs
}

type factPageOutput struct{ Body wire.FactPage }

type factDetailOutput struct{ Body wire.FactDetail }

type statusChangeOutput struct{ Body wire.StatusChange }

type aboutInput struct {
	Bank  string `path:"bank" doc:"bank name"`
	Name  string `path:"name" doc:"an entity's name or alias (URL-escaped)"`
	Limit int    `query:"limit" minimum:"0" doc:"at most this many facts; 0 means the default"`
}

type aboutOutput struct{ Body wire.About }

// registerFacts adds the fact listing with its filters and cursor, one
// fact with its history, invalidate / restore (the reversible path) and
// about.
func (s *Server) registerFacts() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/facts", "listFacts", "List a bank's facts, newest first, a page at a time", ScopeRead, "facts"),
		func(ctx context.Context, in *factsInput) (*factPageOutput, error) {
			q := memory.FactQuery{Tags: in.Tags, Speaker: in.Speaker, Source: in.Source, Limit: in.Limit, Cursor: in.Cursor}
			for _, k := range in.Kinds {
				q.Kinds = append(q.Kinds, memory.FactKind(k))
			}
			for _, c := range in.Categories {
				q.Categories = append(q.Categories, memory.Category(c))
			}
			for _, st := range in.Statuses {
				q.Statuses = append(q.Statuses, memory.Status(st))
			}
			var err error
			if q.From, err = optTime("from", in.From); err != nil {
				return nil, s.fail(err)
			}
			if q.To, err = optTime("to", in.To); err != nil {
				return nil, s.fail(err)
			}
			page, err := s.eng.Facts(ctx, in.Bank, q)
			if err != nil {
				return nil, s.fail(err)
			}
			return &factPageOutput{Body: wire.NewFactPage(page)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/facts/{id}", "getFact", "Get a fact with its supersession history", ScopeRead, "facts"),
		func(ctx context.Context, in *factInput) (*factDetailOutput, error) {
			d, err := s.eng.Fact(ctx, in.Bank, in.ID)
			if err != nil {
				return nil, s.fail(err)
			}
			return &factDetailOutput{Body: wire.NewFactDetail(d.Fact, d.Previous, d.Next)}, nil
		})
	register(s, op(http.MethodPost, "/v1/banks/{bank}/facts/invalidate", "invalidateFacts", "Take facts out of recall, reversibly (all or nothing)", ScopeWrite, "facts"),
		func(ctx context.Context, in *invalidateInput) (*statusChangeOutput, error) {
			changed, err := s.eng.Invalidate(ctx, in.Bank, in.Body.IDs, in.Body.Reason)
			if err != nil {
				return nil, s.fail(err)
			}
			return &statusChangeOutput{Body: wire.NewStatusChange(changed, memory.StatusArchived)}, nil
		})
	register(s, op(http.MethodPost, "/v1/banks/{bank}/facts/restore", "restoreFacts", "Bring invalidated facts back (all or nothing)", ScopeWrite, "facts"),
		func(ctx context.Context, in *restoreInput) (*statusChangeOutput, error) {
			changed, err := s.eng.Restore(ctx, in.Bank, in.Body.IDs)
			if err != nil {
				return nil, s.fail(err)
			}
			return &statusChangeOutput{Body: wire.NewStatusChange(changed, memory.StatusActive)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/about/{name}", "about", "Everything known about an entity: its facts and relations", ScopeRead, "facts"),
		func(ctx context.Context, in *aboutInput) (*aboutOutput, error) {
			a, err := s.eng.About(ctx, in.Bank, in.Name, in.Limit)
			if err != nil {
				return nil, s.fail(err)
			}
			return &aboutOutput{Body: wire.NewAbout(a)}, nil
		})
}

// optTime parses the time a request gives in field name (wire.ParseTime),
// or is the zero time when it gives none; EINVALID names the field.
func optTime(name, in string) (time.Time, error) {
	if in == "" {
		return time.Time{}, nil
	}
	t, err := wire.ParseTime(in)
	if err != nil {
		return time.Time{}, memory.Errorf(memory.EINVALID, "%s: %s", name, memory.ErrorMessage(err))
	}
	return t, nil
}

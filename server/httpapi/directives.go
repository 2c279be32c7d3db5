package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

type directiveInput struct {
	Bank string `path:"bank" doc:"bank name"`
	ID   string `path:"id" doc:"directive id"`
}

type listDirectivesInput struct {
	Bank   string   `path:"bank" doc:"bank name"`
	Scopes []string `query:"scope" doc:"only the directives that apply to these scopes (comma-separated); none: all"`
}

// addDirectiveBody is the body of POST /v1/banks/{bank}/directives.
type addDirectiveBody struct {
	Text   string   `json:"text" minLength:"1" doc:"the rule, one sentence or a few"`
	Scopes []string `json:"scopes,omitempty" doc:"where it applies (a project, a task type); none: everywhere"`
}

// editDirectiveBody is the body of PATCH: a field left out is kept.
type editDirectiveBody struct {
	Text   *string   `json:"text,omitempty" doc:"the new text"`
	Scopes *[]string `json:"scopes,omitempty" doc:"the new scopes; [] makes it apply everywhere"`
}

type addDirectiveInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body addDirectiveBody
}

type editDirectiveInput struct {
	Bank string `path:"bank" doc:"bank name"`
	ID   string `path:"id" doc:"directive id"`
	Body editDirectiveBody
}

type directiveOutput struct{ Body wire.Directive }

type directiveListOutput struct{ Body wire.DirectiveList }

// registerDirectives adds directives: list (all, or those of a scope),
// add, edit and delete.
func (s *Server) registerDirectives() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/directives", "listDirectives", "List a bank's directives, oldest first", ScopeRead, "directives"),
		func(ctx context.Context, in *listDirectivesInput) (*directiveListOutput, error) {
			get := s.eng.Directives
			if len(in.Scopes) > 0 {
				get = func(ctx context.Context, bank string) ([]*memory.Directive, error) {
					return s.eng.DirectivesFor(ctx, bank, in.Scopes)
				}
			}
			ds, err := get(ctx, in.Bank)
			if err != nil {
				return nil, s.fail(err)
			}
			return &directiveListOutput{Body: wire.NewDirectiveList(ds)}, nil
		})
	add := op(http.MethodPost, "/v1/banks/{bank}/directives", "addDirective", "Add a directive: a rule the agent must follow", ScopeWrite, "directives")
	add.DefaultStatus = http.StatusCreated
	register(s, add,
		func(ctx context.Context, in *addDirectiveInput) (*directiveOutput, error) {
			d, err := s.eng.AddDirective(ctx, in.Bank, in.Body.Text, in.Body.Scopes)
			if err != nil {
				return nil, s.fail(err)
			}
			return &directiveOutput{Body: wire.NewDirective(d)}, nil
		})
	register(s, op(http.MethodPatch, "/v1/banks/{bank}/directives/{id}", "editDirective", "Change a directive's text or scopes", ScopeWrite, "directives"),
		func(ctx context.Context, in *editDirectiveInput) (*directiveOutput, error) {
			d, err := s.eng.EditDirective(ctx, in.Bank, in.ID, mnemo.DirectiveEdit{Text: in.Body.Text, Scopes: in.Body.Scopes})
			if err != nil {
				return nil, s.fail(err)
			}
			return &directiveOutput{Body: wire.NewDirective(d)}, nil
		})
	register(s, op(http.MethodDelete, "/v1/banks/{bank}/directives/{id}", "deleteDirective", "Delete a directive", ScopeWrite, "directives"),
		func(ctx context.Context, in *directiveInput) (*deletedOutput, error) {
			if err := s.eng.DeleteDirective(ctx, in.Bank, in.ID); err != nil {
				return nil, s.fail(err)
			}
			return &deletedOutput{Body: wire.Deleted{Deleted: in.ID}}, nil
		})
}

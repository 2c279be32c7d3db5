package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

type entitiesInput struct {
	Bank   string `path:"bank" doc:"bank name"`
	Type   string `query:"type" doc:"only entities of this type"`
	Limit  int    `query:"limit" minimum:"0" doc:"page size; 0 means the default"`
	Cursor string `query:"cursor" doc:"the previous page's next"`
}

type entityInput struct {
	Bank string `path:"bank" doc:"bank name"`
	ID   string `path:"id" doc:"entity id"`
}

type upsertEntityInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.UpsertEntity
}

type relationsInput struct {
	Bank      string `path:"bank" doc:"bank name"`
	Subject   string `query:"subject" doc:"subject entity id"`
	Predicate string `query:"predicate"`
	Object    string `query:"object" doc:"object entity id"`
	Entity    string `query:"entity" doc:"entity id at either end"`
	Current   bool   `query:"current" doc:"only relations that still hold"`
}

type addRelationInput struct {
	Bank string `path:"bank" doc:"bank name"`
	Body wire.AddRelation
}

type entityPageOutput struct{ Body wire.EntityPage }

type entityOutput struct{ Body wire.Entity }

type relationListOutput struct{ Body wire.RelationList }

type relationOutput struct{ Body wire.Relation }

// registerEntities adds the graph: entities (list, get, add by hand) and
// relations (list, add by hand).
func (s *Server) registerEntities() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/entities", "listEntities", "List a bank's entities, a page at a time", ScopeRead, "entities"),
		func(ctx context.Context, in *entitiesInput) (*entityPageOutput, error) {
			page, err := s.eng.Entities(ctx, in.Bank, memory.EntityQuery{Type: memory.EntityType(in.Type), Limit: in.Limit, Cursor: in.Cursor})
			if err != nil {
				return nil, s.fail(err)
			}
			return &entityPageOutput{Body: wire.NewEntityPage(page)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/entities/{id}", "getEntity", "Get an entity", ScopeRead, "entities"),
		func(ctx context.Context, in *entityInput) (*entityOutput, error) {
			ent, err := s.eng.Entity(ctx, in.Bank, in.ID)
			if err != nil {
				return nil, s.fail(err)
			}
			return &entityOutput{Body: wire.NewEntity(ent)}, nil
		})
	register(s, op(http.MethodPost, "/v1/banks/{bank}/entities", "upsertEntity", "Add an entity by hand (or a mention to the one of that name)", ScopeWrite, "entities"),
		func(ctx context.Context, in *upsertEntityInput) (*entityOutput, error) {
			b := in.Body
			ent, err := s.eng.UpsertEntity(ctx, in.Bank, mnemo.EntityInput{Name: b.Name, Type: memory.EntityType(b.Type), Aliases: b.Aliases})
			if err != nil {
				return nil, s.fail(err)
			}
			return &entityOutput{Body: wire.NewEntity(ent)}, nil
		})
	register(s, op(http.MethodGet, "/v1/banks/{bank}/relations", "listRelations", "List a bank's relations, current and closed", ScopeRead, "entities"),
		func(ctx context.Context, in *relationsInput) (*relationListOutput, error) {
			if err := s.requireBank(ctx, in.Bank); err != nil {
				return nil, err
			}
			rels, err := s.eng.Relations(ctx, in.Bank, memory.RelationQuery{SubjectID: in.Subject, Predicate: in.Predicate, ObjectID: in.Object, EntityID: in.Entity, Current: in.Current})
			if err != nil {
				return nil, s.fail(err)
			}
			out := wire.RelationList{Relations: make([]wire.Relation, len(rels))}
			for i, r := range rels {
				out.Relations[i] = wire.NewRelation(r, "", "")
			}
			return &relationListOutput{Body: out}, nil
		})
	add := op(http.MethodPost, "/v1/banks/{bank}/relations", "addRelation", "Add a relation by hand between two existing entities", ScopeWrite, "entities")
	add.DefaultStatus = http.StatusCreated
	register(s, add, func(ctx context.Context, in *addRelationInput) (*relationOutput, error) {
		b := in.Body
		from, err := optTime("valid_from", b.ValidFrom)
		if err != nil {
			return nil, s.fail(err)
		}
		rel, err := s.eng.AddRelation(ctx, in.Bank, mnemo.RelationInput{Subject: b.Subject, Predicate: b.Predicate, Object: b.Object, Confidence: b.Confidence, ValidFrom: from, FactIDs: b.FactIDs})
		if err != nil {
			return nil, s.fail(err)
		}
		return &relationOutput{Body: wire.NewRelation(rel, "", "")}, nil
	})
}

// requireBank is the API's error for a bank that does not exist, for
// the calls that would answer an empty list for it.
func (s *Server) requireBank(ctx context.Context, bank string) error {
	if _, err := s.eng.Bank(ctx, bank); err != nil {
		return s.fail(err)
	}
	return nil
}

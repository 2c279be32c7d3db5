package httpapi

import (
	"context"
	"net/http"

	"github.com/mnemo-ai/mnemo/wire"
)

type documentInput struct {
	Bank   string `path:"bank" doc:"bank name"`
	Source string `path:"source" doc:"source channel the item came from"`
	Item   string `path:"item" doc:"the item's external id (URL-escaped)"`
}

type documentOutput struct{ Body wire.Document }

// registerDocuments adds a retained item with its chunks.
func (s *Server) registerDocuments() {
	register(s, op(http.MethodGet, "/v1/banks/{bank}/documents/{source}/{item}", "getDocument", "Get a retained item with its chunks", ScopeRead, "documents"),
		func(ctx context.Context, in *documentInput) (*documentOutput, error) {
			d, chunks, err := s.eng.Document(ctx, in.Bank, in.Source, in.Item)
			if err != nil {
				return nil, s.fail(err)
			}
			return &documentOutput{Body: wire.NewDocument(d, chunks)}, nil
		})
}

package httpapi

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/wire"
)

// contentJSONL is the media type of a bank export.
const contentJSONL = "application/x-ndjson"

// streamOutput is an answer written by its Body function.
type streamOutput struct {
	Body func(ctx huma.Context)
}

// importInput takes the request body raw (a bank export, JSONL) as a
// stream bounded by MaxImport, through huma's Resolver hook.
type importInput struct {
	Bank string `path:"bank" doc:"bank name"`
	body io.Reader
}

// Resolve implements huma.Resolver: it keeps the body as a stream.
func (in *importInput) Resolve(ctx huma.Context) []error {
	r, w := humago.Unwrap(ctx)
	// An import may outlast the server's read timeout: it sets its own.
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	in.body = &utf8Reader{r: http.MaxBytesReader(w, r.Body, maxImport(ctx))}
	return nil
}

// maxImport is the import body limit, kept in the operation's metadata.
func maxImport(ctx huma.Context) int64 {
	if n, ok := ctx.Operation().Metadata[metaRaw].(int64); ok && n > 0 {
		return n
	}
	return DefaultMaxImport
}

type importOutput struct{ Body wire.ImportBank }

// registerExport adds the export (GET, streamed JSONL) and the import
// (POST, a JSONL body) of a whole bank.
func (s *Server) registerExport() {
	ex := op(http.MethodGet, "/v1/banks/{bank}/export", "exportBank", "Export a bank, whole, as JSON lines", ScopeRead, "export")
	ex.Responses = map[string]*huma.Response{"200": {
		Description: "the bank as JSON lines (docs/export.md)",
		Content:     map[string]*huma.MediaType{contentJSONL: {}},
	}}
	register(s, ex, func(ctx context.Context, in *bankPath) (*streamOutput, error) {
		// Known before the first byte: an unknown bank is still a 404.
		if _, err := s.eng.Bank(ctx, in.Bank); err != nil {
			return nil, s.fail(err)
		}
		return &streamOutput{Body: func(hc huma.Context) {
			_, w := humago.Unwrap(hc)
			// A big bank takes longer than the server's write timeout.
			http.NewResponseController(w).SetWriteDeadline(time.Time{})
			hc.SetHeader("Content-Type", contentJSONL)
			hc.SetStatus(http.StatusOK)
			bw := bufio.NewWriterSize(hc.BodyWriter(), 1<<16)
			err := s.eng.Export(hc.Context(), in.Bank, bw)
			if err == nil {
				err = bw.Flush()
			}
			if err != nil {
				// The status is sent: the client sees a cut stream.
				s.log.Error("export", "bank", in.Bank, "err", err)
			}
		}}, nil
	})
	im := op(http.MethodPost, "/v1/banks/{bank}/import", "importBank", "Create a bank from an export (JSON lines)", ScopeAdmin, "export")
	im.Metadata[metaRaw] = s.opts.MaxImport
	im.DefaultStatus = http.StatusCreated
	im.RequestBody = &huma.RequestBody{
		Description: "a bank export (GET …/export, mnemo export)", Required: true,
		Content: map[string]*huma.MediaType{contentJSONL: {}},
	}
	register(s, im, func(ctx context.Context, in *importInput) (*importOutput, error) {
		rep, err := s.eng.ImportBank(ctx, in.body, mnemo.ImportBankOptions{Bank: in.Bank})
		if err != nil {
			return nil, s.fail(err)
		}
		return &importOutput{Body: wire.ImportBank{Bank: rep.Bank, Records: rep.Records, Counts: rep.Counts}}, nil
	})
}

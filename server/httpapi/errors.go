package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// statusOf is the one table mapping error codes to HTTP statuses. Schema
// validation errors keep the status huma gives them (422) with the code
// invalid; a body over the limit is 413 with the code invalid.
var statusOf = map[string]int{
	memory.EINVALID:      http.StatusBadRequest,
	memory.ENOTFOUND:     http.StatusNotFound,
	memory.ECONFLICT:     http.StatusConflict,
	memory.EUNAUTHORIZED: http.StatusUnauthorized,
	memory.EFORBIDDEN:    http.StatusForbidden,
	memory.EUNAVAILABLE:  http.StatusServiceUnavailable,
	memory.EINTERNAL:     http.StatusInternalServerError,
}

// Status is the HTTP status of an error code; unknown codes are 500.
func Status(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// codeFor is the error code of an HTTP status huma chose itself (a
// schema violation, a body that does not parse): the table read
// backwards, and invalid for any other 4xx.
func codeFor(status int) string {
	for code, s := range statusOf {
		if s == status && code != memory.EINVALID {
			return code
		}
	}
	if status >= 400 && status < 500 {
		return memory.EINVALID
	}
	return memory.EINTERNAL
}

// apiError is every error the API answers, as wire.Error: huma.NewError
// makes it for huma's own errors, and fail for the engine's.
type apiError struct {
	status int
	body   wire.Error
}

// Error implements error.
func (e *apiError) Error() string { return e.body.Error.Code + ": " + e.body.Error.Message }

// GetStatus implements huma.StatusError.
func (e *apiError) GetStatus() int { return e.status }

// ContentType implements huma.ContentTypeFilter: errors are plain JSON.
func (e *apiError) ContentType(string) string { return "application/json" }

// MarshalJSON writes the wire shape only.
func (e *apiError) MarshalJSON() ([]byte, error) { return json.Marshal(e.body) }

// newAPIError is an apiError with the status of code.
func newAPIError(code, msg string) *apiError {
	return newAPIErrorStatus(Status(code), code, msg)
}

// newAPIErrorStatus is an apiError with an explicit status.
func newAPIErrorStatus(status int, code, msg string) *apiError {
	return &apiError{status: status, body: wire.Error{Error: wire.ErrorBody{Code: code, Message: msg}}}
}

func init() {
	// huma's own errors (validation, unreadable bodies, too large bodies)
	// take the API's one shape. huma.NewError is package state: every huma
	// API in the process answers this way, which is what mnemo wants.
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		var details []string
		for _, e := range errs {
			if e != nil {
				details = append(details, e.Error())
			}
		}
		if len(details) > 0 {
			msg = strings.TrimSuffix(msg, ".") + ": " + strings.Join(details, "; ")
		}
		if status == http.StatusRequestEntityTooLarge {
			return newAPIErrorStatus(status, memory.EINVALID, msg)
		}
		return newAPIErrorStatus(status, codeFor(status), msg)
	}
}

// fail turns an engine error into the API's error: its code's status and
// message. Internal errors are logged in full and shown as "internal
// error".
func (s *Server) fail(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return newAPIErrorStatus(http.StatusRequestEntityTooLarge, memory.EINVALID, tooLarge(mbe.Limit))
	}
	code := memory.ErrorCode(err)
	if code == memory.EINTERNAL {
		s.log.Error("internal error", "err", err)
	}
	return newAPIError(code, memory.ErrorMessage(err))
}

// writeError writes err (an apiError, or any error through fail) as the
// response, outside huma's handlers.
func (s *Server) writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		errors.As(s.fail(err), &ae)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ae.status)
	json.NewEncoder(w).Encode(ae.body)
}

// Schema implements huma.SchemaProvider: the OpenAPI document describes
// errors as wire.Error.
func (e *apiError) Schema(r huma.Registry) *huma.Schema {
	return r.Schema(reflect.TypeFor[wire.Error](), true, "Error")
}

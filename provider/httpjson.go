package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mnemo-ai/mnemo/memory"
)

// maxReply bounds the body of one provider reply read into memory.
const maxReply = 64 << 20

// PostJSON posts body, encoded as JSON, to url with header and decodes a
// 2xx reply into out. It is the one HTTP exchange of the hand-written
// clients (provider/openai, provider/anthropic): one request, no retries
// (a [Guard] retries), the caller's context bounding it.
//
// Failures map as in [MapError]: the context ending is EUNAVAILABLE
// "timed out" or "canceled"; an HTTP error status is an [HTTPError] with
// the server's message and Retry-After hint; a refused or cut connection
// is EUNAVAILABLE; a complete 2xx reply that is not the JSON promised is
// malformed (EINVALID wrapping [ErrMalformed]). secret, usually the API
// key, never appears in a message.
func PostJSON(ctx context.Context, hc *http.Client, url string, header http.Header, body, out any, secret string) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return memory.Errorf(memory.EINVALID, "encode request: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return memory.Errorf(memory.EINVALID, "request: %s", Redact(err.Error(), secret))
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return MapError(ctx, err, nil, secret)
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return MapError(ctx, errors.New(res.Status), res, secret)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxReply+1))
	if err != nil {
		return MapError(ctx, fmt.Errorf("error reading response body: %w", err), res, secret)
	}
	if len(data) > maxReply {
		return Malformed("reply larger than %d MB", maxReply>>20)
	}
	if res.StatusCode/100 != 2 {
		return Malformed("reply has status %d", res.StatusCode)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &Error{Code: memory.EINVALID, Message: "unreadable response: " + OneLine(err.Error(), maxMessage), Status: res.StatusCode, Err: fmt.Errorf("%v: %w", err, ErrMalformed)}
	}
	return nil
}

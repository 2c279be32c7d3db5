// Package llmtest is a scripted OpenAI-compatible server for tests: a real
// HTTP server on 127.0.0.1 that answers /v1/chat/completions from rules,
// /v1/embeddings with deterministic unit vectors and /v1/models with one
// model. Every request is recorded so tests can assert what the client
// sent. It never calls a real API.
//
// Use it from any package's tests:
//
//	s := llmtest.NewServer()
//	defer s.Close()
//	s.On(llmtest.Rule{Schema: "facts", Reply: llmtest.Reply{JSON: map[string]any{"facts": []any{}}}})
//	llm := openai.New(openai.Config{BaseURL: s.URL(), Model: "test"})
package llmtest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultDimension is the length of the vectors /v1/embeddings returns
// unless [Server.SetDimension] or the request's "dimensions" says
// otherwise.
const DefaultDimension = 64

// DefaultModel is the model id listed by GET /v1/models.
const DefaultModel = "llmtest"

// Paths the server answers.
const (
	// PathChat answers chat completions from the rules.
	PathChat = "/v1/chat/completions"
	// PathEmbeddings answers with [Vector] per input text.
	PathEmbeddings = "/v1/embeddings"
	// PathModels lists [DefaultModel].
	PathModels = "/v1/models"
)

// NoRuleMessage is the error message of the HTTP 500 answered to a chat
// request that no rule matches.
const NoRuleMessage = "llmtest: no rule matches"

// Rule scripts the answer to matching requests. All set conditions must
// hold for a rule to match.
type Rule struct {
	// Path is the endpoint the rule answers: "" means [PathChat];
	// [PathEmbeddings] scripts failures of the embeddings endpoint (only
	// Status, RetryAfter, Delay, Hang and TruncateBody apply there).
	Path string
	// Contains must be a substring of some message's content (system,
	// user, assistant or tool); "" matches all.
	Contains string
	// Schema must equal [Request.Schema]; "" matches all.
	Schema string
	// Match is an optional extra predicate.
	Match func(Request) bool
	// Times is how many requests this rule answers; 0 means unlimited.
	Times int
	// Reply is the answer.
	Reply Reply
	// Respond, when set, computes the answer from the request instead of
	// Reply (a stand-in model that reads its prompt: the ids it was
	// offered, the text it was given). It is called without the server's
	// lock held, possibly concurrently.
	Respond func(Request) Reply
}

// Reply is a scripted answer.
type Reply struct {
	// JSON, when not nil, is marshalled as the assistant's content.
	JSON any
	// Content is the raw assistant content, used when JSON is nil; it may
	// contain <think> blocks. For an error Status it is the error message.
	Content string
	// ToolCalls are returned as the assistant's tool calls (finish reason
	// "tool_calls"); empty IDs become "call_<n>".
	ToolCalls []memory.ToolCall
	// Status, when not 0 or 200, answers with that HTTP status and an
	// OpenAI-style error body {"error":{"message":…,"type":…}}.
	Status int
	// RetryAfter sets the Retry-After (whole seconds, rounded up) and
	// retry-after-ms headers.
	RetryAfter time.Duration
	// Delay waits before answering (cut short if the client gives up).
	Delay time.Duration
	// Hang never answers: the handler waits until the client disconnects
	// or the server closes.
	Hang bool
	// TruncateContent cuts the content in half and sets finish_reason
	// "length", like a model that hit its token limit.
	TruncateContent bool
	// TruncateBody sends only the first half of the HTTP body (with a
	// matching Content-Length), so the response is not valid JSON.
	TruncateBody bool
	// Usage is reported in the response's usage.
	Usage memory.Usage
}

// Message is one chat message as the server received it.
type Message struct {
	Role    string
	Content string
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	Model  string
	// System joins the contents of the system and developer messages.
	System string
	// Messages are all messages in order, system ones included.
	Messages []Message
	// ResponseFormat is "json_schema", "json_object" or "".
	ResponseFormat string
	// Schema is the json_schema name; in the json_object and plain
	// fallbacks it is the name quoted in provider.SchemaPrompt's
	// instructions, when present.
	Schema string
	// Tools are the names of the function tools offered.
	Tools []string
	// Input holds the texts of an embeddings request.
	Input []string
}

// Server is a scripted OpenAI-compatible server. Its methods are safe for
// concurrent use.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	url  string
	done chan struct{}

	mu         sync.Mutex
	rules      []*rule
	requests   []Request
	dim        int
	noRecord   bool
	served     int
	rejectJS   bool
	rejectJO   bool
	closeOnce  sync.Once
	toolCallID int
}

type rule struct {
	Rule
	used int
}

// NewServer starts a server listening on 127.0.0.1 on a free port. It
// panics if it cannot listen (tests cannot run without it). Call Close
// when done.
func NewServer() *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("llmtest: listen: %v", err))
	}
	s := &Server{ln: ln, done: make(chan struct{}), dim: DefaultDimension}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PathChat, s.chat)
	mux.HandleFunc("POST "+PathEmbeddings, s.embeddings)
	mux.HandleFunc("GET "+PathModels, s.models)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.record(r, nil)
		writeError(w, http.StatusNotFound, "llmtest: no route "+r.Method+" "+r.URL.Path)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.url = "http://" + ln.Addr().String() + "/v1"
	go func() { _ = s.srv.Serve(ln) }()
	return s
}

// URL returns the base URL, ending in /v1.
func (s *Server) URL() string { return s.url }

// Close stops the server, releasing hanging handlers.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}
	})
}

// On adds a rule. Rules are tried in the order added; the first that
// matches and has Times left answers. It returns s for chaining.
func (s *Server) On(r Rule) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &rule{Rule: r})
	return s
}

// Reset removes all rules and recorded requests.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules, s.requests = nil, nil
}

// SetDimension sets the length of embedding vectors (default
// [DefaultDimension]).
func (s *Server) SetDimension(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dim = n
}

// RejectJSONSchema makes chat requests with response_format json_schema
// fail with HTTP 400 "response_format json_schema is not supported", like
// servers without structured outputs.
func (s *Server) RejectJSONSchema(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectJS = v
}

// RejectJSONObject makes chat requests with response_format json_object
// fail with HTTP 400, like servers without JSON mode.
func (s *Server) RejectJSONObject(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectJO = v
}

// Requests returns a copy of every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ChatRequests returns the recorded chat completion requests, in order.
func (s *Server) ChatRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path == PathChat {
			out = append(out, r)
		}
	}
	return out
}

// wire formats of the requests.
type chatBody struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type embedBody struct {
	Model      string          `json:"model"`
	Input      json.RawMessage `json:"input"`
	Dimensions int             `json:"dimensions"`
}

// schemaPromptName finds the schema name quoted by provider.SchemaPrompt.
var schemaPromptName = regexp.MustCompile(`JSON Schema \("((?:[^"\\]|\\.)*)"`)

// content reads a message content: a string or an array of text parts.
func content(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// record parses and stores r; body is the already read body.
func (s *Server) record(r *http.Request, body []byte) Request {
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	switch r.URL.Path {
	case PathChat:
		var cb chatBody
		if json.Unmarshal(body, &cb) == nil {
			req.Model = cb.Model
			var sys []string
			for _, m := range cb.Messages {
				c := content(m.Content)
				req.Messages = append(req.Messages, Message{Role: m.Role, Content: c})
				if m.Role == "system" || m.Role == "developer" {
					sys = append(sys, c)
				}
			}
			req.System = strings.Join(sys, "\n")
			if rf := cb.ResponseFormat; rf != nil && rf.Type != "text" {
				req.ResponseFormat = rf.Type
				if rf.JSONSchema != nil {
					req.Schema = rf.JSONSchema.Name
				}
			}
			if req.Schema == "" {
				for _, m := range req.Messages {
					if sm := schemaPromptName.FindStringSubmatch(m.Content); sm != nil {
						if name, err := strconv.Unquote(`"` + sm[1] + `"`); err == nil {
							req.Schema = name
						}
						break
					}
				}
			}
			for _, t := range cb.Tools {
				req.Tools = append(req.Tools, t.Function.Name)
			}
		}
	case PathEmbeddings:
		var eb embedBody
		if json.Unmarshal(body, &eb) == nil {
			req.Model = eb.Model
			var one string
			if json.Unmarshal(eb.Input, &one) == nil {
				req.Input = []string{one}
			} else {
				_ = json.Unmarshal(eb.Input, &req.Input)
			}
		}
	}
	s.mu.Lock()
	s.served++
	if !s.noRecord {
		s.requests = append(s.requests, req)
	}
	s.mu.Unlock()
	return req
}

// SetRecording turns the request log on (the default) or off: a long
// run (a benchmark's thousands of calls) keeps no copies; Served still
// counts.
func (s *Server) SetRecording(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noRecord = !on
}

// Served counts every request the server received, recorded or not.
func (s *Server) Served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// match returns the first rule for req with Times left, consuming one use.
func (s *Server) match(req Request) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rules {
		path := r.Path
		if path == "" {
			path = PathChat
		}
		if path != req.Path || (r.Times > 0 && r.used >= r.Times) {
			continue
		}
		if r.Schema != "" && r.Schema != req.Schema {
			continue
		}
		if r.Contains != "" && !containsAny(req.Messages, r.Contains) {
			continue
		}
		if r.Match != nil && !r.Match(req) {
			continue
		}
		r.used++
		if r.Respond != nil {
			respond := r.Respond
			s.mu.Unlock()
			rep := respond(req)
			s.mu.Lock()
			return rep, true
		}
		return r.Reply, true
	}
	return Reply{}, false
}

func containsAny(msgs []Message, sub string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, sub) {
			return true
		}
	}
	return false
}

// wait applies Delay and Hang; it returns false when the client left or
// the server closed first.
func (s *Server) wait(r *http.Request, rep Reply) bool {
	if rep.Hang {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return false
	}
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return false
		case <-s.done:
			return false
		}
	}
	return true
}

// failed writes rep's error status; it reports whether it did.
func failed(w http.ResponseWriter, rep Reply) bool {
	if rep.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(rep.RetryAfter.Seconds()))))
		w.Header().Set("Retry-After-Ms", strconv.FormatInt(rep.RetryAfter.Milliseconds(), 10))
	}
	if rep.Status == 0 || rep.Status == http.StatusOK {
		return false
	}
	msg := rep.Content
	if msg == "" {
		msg = http.StatusText(rep.Status)
	}
	writeError(w, rep.Status, msg)
	return true
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := s.record(r, body)
	var cb chatBody
	if err := json.Unmarshal(body, &cb); err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: body is not JSON: "+err.Error())
		return
	}
	if cb.Stream {
		writeError(w, http.StatusBadRequest, "llmtest: stream is not supported")
		return
	}
	s.mu.Lock()
	rejectJS, rejectJO := s.rejectJS, s.rejectJO
	s.mu.Unlock()
	switch {
	case rejectJS && req.ResponseFormat == "json_schema":
		writeErrorParam(w, http.StatusBadRequest, "response_format json_schema is not supported", "response_format")
		return
	case rejectJO && req.ResponseFormat == "json_object":
		writeErrorParam(w, http.StatusBadRequest, "response_format json_object is not supported", "response_format")
		return
	}
	rep, ok := s.match(req)
	if !ok {
		writeError(w, http.StatusInternalServerError, NoRuleMessage)
		return
	}
	if !s.wait(r, rep) || failed(w, rep) {
		return
	}

	text := rep.Content
	if rep.JSON != nil {
		b, err := json.Marshal(rep.JSON)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "llmtest: marshal reply: "+err.Error())
			return
		}
		text = string(b)
	}
	finish := "stop"
	if rep.TruncateContent {
		text = text[:len(text)/2]
		finish = "length"
	}
	msg := map[string]any{"role": "assistant", "content": text}
	if len(rep.ToolCalls) > 0 {
		var calls []map[string]any
		for _, tc := range rep.ToolCalls {
			id := tc.ID
			if id == "" {
				s.mu.Lock()
				s.toolCallID++
				id = fmt.Sprintf("call_%d", s.toolCallID)
				s.mu.Unlock()
			}
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{
				"id": id, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": args},
			})
		}
		msg["tool_calls"] = calls
		if !rep.TruncateContent {
			finish = "tool_calls"
		}
		if text == "" {
			msg["content"] = nil
		}
	}
	model := req.Model
	if model == "" {
		model = DefaultModel
	}
	resp := map[string]any{
		"id":      "chatcmpl-llmtest",
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage": map[string]any{
			"prompt_tokens":     rep.Usage.InputTokens,
			"completion_tokens": rep.Usage.OutputTokens,
			"total_tokens":      rep.Usage.InputTokens + rep.Usage.OutputTokens,
		},
	}
	writeJSON(w, resp, rep.TruncateBody)
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := s.record(r, body)
	var eb embedBody
	if err := json.Unmarshal(body, &eb); err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: body is not JSON: "+err.Error())
		return
	}
	rep, _ := s.match(req)
	if !s.wait(r, rep) || failed(w, rep) {
		return
	}
	if len(req.Input) == 0 {
		writeErrorParam(w, http.StatusBadRequest, "input must not be empty", "input")
		return
	}
	s.mu.Lock()
	dim := s.dim
	s.mu.Unlock()
	if eb.Dimensions > 0 {
		dim = eb.Dimensions
	}
	data := make([]any, len(req.Input))
	tokens := 0
	for i, text := range req.Input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Vector(text, dim)}
		tokens += len(strings.Fields(text))
	}
	writeJSON(w, map[string]any{
		"object": "list",
		"data":   data,
		"model":  eb.Model,
		"usage":  map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	}, rep.TruncateBody)
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record(r, nil)
	writeJSON(w, map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": DefaultModel, "object": "model", "created": 0, "owned_by": "llmtest"}},
	}, false)
}

// Vector returns the deterministic unit vector of length dim the server
// embeds text as: SHA-256 in counter mode mapped to [-1, 1], L2-normalised.
func Vector(text string, dim int) []float32 {
	v := make([]float32, dim)
	var norm float64
	var block [sha256.Size]byte
	for i := range v {
		if i%8 == 0 {
			h := sha256.New()
			var ctr [8]byte
			binary.LittleEndian.PutUint64(ctr[:], uint64(i/8))
			h.Write(ctr[:])
			h.Write([]byte(text))
			h.Sum(block[:0])
		}
		u := binary.LittleEndian.Uint32(block[(i%8)*4:])
		x := float64(u)/math.MaxUint32*2 - 1
		v[i] = float32(x)
		norm += x * x
	}
	if norm == 0 {
		return v
	}
	inv := 1 / math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeErrorParam(w, status, msg, "")
}

func writeErrorParam(w http.ResponseWriter, status int, msg, param string) {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		typ = "authentication_error"
	case status >= 500:
		typ = "server_error"
	}
	e := map[string]any{"message": msg, "type": typ, "code": nil, "param": nil}
	if param != "" {
		e["param"] = param
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeJSON(w http.ResponseWriter, v any, truncate bool) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "llmtest: "+err.Error())
		return
	}
	if truncate {
		b = b[:len(b)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

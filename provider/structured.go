package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemo-ai/mnemo/memory"
)

// ErrMalformed is wrapped by every error that says a provider answered,
// but not with what was asked: no JSON where JSON was required, JSON that
// violates the request's schema, a reply cut off by the token limit. Test
// it with errors.Is; the [Guard] retries such answers.
var ErrMalformed = errors.New("malformed answer")

// maxExtractStarts bounds how many candidate openings ExtractJSON tries,
// so that adversarial text ("[[[[…") stays linear in practice.
const maxExtractStarts = 64

// StripThink removes reasoning blocks from a model's text: every
// <think>…</think> block, an unterminated block that opens the text (the
// model ran out of tokens while thinking), and a leading run of text ended
// by a stray </think> (templates that open the block in the prompt). The
// result is trimmed of surrounding whitespace.
func StripThink(s string) string {
	const open, close = "<think>", "</think>"
	// A closing tag before any opening tag: the block opened in the prompt.
	if c := strings.Index(s, close); c >= 0 {
		if o := strings.Index(s, open); o < 0 || o > c {
			s = s[c+len(close):]
		}
	}
	var b strings.Builder
	for {
		o := strings.Index(s, open)
		if o < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:o])
		rest := s[o+len(open):]
		c := strings.Index(rest, close)
		if c < 0 {
			// Unterminated: everything after the tag is reasoning.
			break
		}
		s = rest[c+len(close):]
	}
	return strings.TrimSpace(b.String())
}

// ExtractJSON returns the first JSON object or array in s, tolerating
// reasoning blocks, ```json fences and prose around it. A fenced block is
// preferred over bare text. The error wraps [ErrMalformed] when s holds no
// complete JSON object or array.
func ExtractJSON(s string) ([]byte, error) {
	s = StripThink(s)
	if doc, ok := fenced(s); ok {
		return doc, nil
	}
	if doc, ok := firstJSON(s); ok {
		return doc, nil
	}
	if strings.ContainsAny(s, "{[") {
		return nil, fmt.Errorf("no complete JSON value in %q: %w", OneLine(s, 80), ErrMalformed)
	}
	return nil, fmt.Errorf("no JSON in %q: %w", OneLine(s, 80), ErrMalformed)
}

// fenced returns the JSON in the first ``` block that holds some.
func fenced(s string) ([]byte, bool) {
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			return nil, false
		}
		body := s[i+3:]
		// Skip the info string ("json", "JSON", …) up to the end of line.
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
			body = body[nl+1:]
		}
		j := strings.Index(body, "```")
		if j < 0 {
			return nil, false
		}
		if doc, ok := firstJSON(body[:j]); ok {
			return doc, true
		}
		s = body[j+3:]
	}
}

// firstJSON returns the first balanced {…} or […] in s that is valid JSON.
func firstJSON(s string) ([]byte, bool) {
	starts := 0
	for i := 0; i < len(s) && starts < maxExtractStarts; i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		starts++
		end, ok := balanced(s, i)
		if !ok {
			continue
		}
		if doc := []byte(s[i:end]); json.Valid(doc) {
			return doc, true
		}
	}
	return nil, false
}

// balanced returns the end (exclusive) of the bracketed value opening at
// s[i], honouring JSON strings and escapes.
func balanced(s string, i int) (int, bool) {
	var stack []byte
	inString, escaped := false, false
	for j := i; j < len(s); j++ {
		c := s[j]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// resolved caches compiled schemas by their JSON text.
var resolved sync.Map // string → *jsonschema.Resolved

// Validate checks doc against schema. It returns nil when schema is nil or
// has no JSON. A document that is not JSON or violates the schema gives an
// error wrapping [ErrMalformed] with a short message naming the schema
// location that failed; a schema that does not compile gives an EINVALID
// *memory.Error that does not (the caller's bug, not the model's).
// Compiled schemas are cached; Validate is safe for concurrent use.
func Validate(schema *memory.Schema, doc []byte) error {
	if schema == nil || len(bytes.TrimSpace(schema.JSON)) == 0 {
		return nil
	}
	rs, err := compile(schema)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("answer is not JSON: %s: %w", OneLine(err.Error(), 120), ErrMalformed)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("answer violates schema %s: %s: %w", schema.Name, shortValidation(err.Error()), ErrMalformed)
	}
	return nil
}

func compile(schema *memory.Schema) (*jsonschema.Resolved, error) {
	key := string(schema.JSON)
	if rs, ok := resolved.Load(key); ok {
		return rs.(*jsonschema.Resolved), nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema.JSON, &s); err != nil {
		return nil, memory.Errorf(memory.EINVALID, "schema %s: %s", schema.Name, OneLine(err.Error(), 200))
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "schema %s: %s", schema.Name, OneLine(err.Error(), 200))
	}
	resolved.Store(key, rs)
	return rs, nil
}

// shortValidation turns jsonschema-go's nested "validating root:
// validating /properties/x: type: … " into "at /properties/x: type: …".
func shortValidation(msg string) string {
	path, rest := "", msg
	for strings.HasPrefix(rest, "validating ") {
		seg := strings.TrimPrefix(rest, "validating ")
		i := strings.Index(seg, ": ")
		if i < 0 {
			break
		}
		path, rest = seg[:i], seg[i+2:]
	}
	if path != "" && path != "root" {
		rest = "at " + path + ": " + rest
	}
	return OneLine(rest, 200)
}

// SchemaPrompt returns instructions that ask for a JSON answer matching
// schema, embedding the schema itself: the fallback for providers without
// native structured output. It returns "" for a nil schema.
func SchemaPrompt(schema *memory.Schema) string {
	if schema == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("Answer with one JSON value and nothing else: no prose, no code fences.")
	b.WriteString(" It must be valid against this JSON Schema")
	if schema.Name != "" {
		fmt.Fprintf(&b, " (%q", schema.Name)
		if schema.Description != "" {
			fmt.Fprintf(&b, ": %s", schema.Description)
		}
		b.WriteString(")")
	}
	b.WriteString(":\n")
	var compact bytes.Buffer
	if err := json.Compact(&compact, schema.JSON); err == nil {
		b.Write(compact.Bytes())
	} else {
		b.Write(schema.JSON)
	}
	return b.String()
}

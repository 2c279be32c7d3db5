package provider_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
)

func TestStripThink(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"None", "hello", "hello"},
		{"Block", "<think>hmm, a cat</think>\n{\"a\":1}", `{"a":1}`},
		{"Several", "a<think>x</think>b<think>y</think>c", "abc"},
		{"Multiline", "<think>\nstep 1\nstep 2\n</think>\n\nAnswer.", "Answer."},
		{"UnterminatedLeading", "<think>I am still thinking about", ""},
		{"UnterminatedAfterText", "Answer.<think>more", "Answer."},
		{"StrayClose", "reasoning without an opening tag</think>{\"a\":1}", `{"a":1}`},
		{"Empty", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := provider.StripThink(tt.in); got != tt.want {
				t.Errorf("StripThink(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestExtractJSON(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"Bare", `{"a":1}`, `{"a":1}`},
		{"Array", `[1, 2]`, `[1, 2]`},
		{"Fence", "Here you go:\n```json\n{\"a\": [1, 2]}\n```\nAnything else?", `{"a": [1, 2]}`},
		{"FenceNoLang", "```\n{\"a\":1}\n```", `{"a":1}`},
		{"FencePreferred", "Note [see below]: {\"x\": 0} and\n```json\n{\"a\":1}\n```", `{"a":1}`},
		{"Prose", `Sure! The answer is {"facts": ["a {b}", "c]"]} — hope it helps.`, `{"facts": ["a {b}", "c]"]}`},
		{"SkipsInvalid", `Result [see notes]: {"ok": true}`, `{"ok": true}`},
		{"Think", "<think>maybe {\"wrong\": 1}</think>{\"right\": 2}", `{"right": 2}`},
		{"EscapedQuote", `{"q": "say \"}\" please"}`, `{"q": "say \"}\" please"}`},
		{"Nested", `x {"a": {"b": [{"c": 1}]}} y`, `{"a": {"b": [{"c": 1}]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := provider.ExtractJSON(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("ExtractJSON = %s, want %s", got, tt.want)
			}
		})
	}
	for _, tt := range []struct{ name, in string }{
		{"NoJSON", "I cannot help with that."},
		{"Truncated", `{"facts": ["Lena has a c`},
		{"Empty", ""},
		{"OnlyThink", "<think>{\"a\":1}"},
		{"Unbalanced", "}{]["},
	} {
		t.Run("Err"+tt.name, func(t *testing.T) {
			_, err := provider.ExtractJSON(tt.in)
			if !errors.Is(err, provider.ErrMalformed) {
				t.Errorf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		if err := provider.Validate(factsSchema, []byte(`{"facts":["a","b"]}`)); err != nil {
			t.Error(err)
		}
	})
	t.Run("NilSchema", func(t *testing.T) {
		if err := provider.Validate(nil, []byte(`not even json`)); err != nil {
			t.Error(err)
		}
	})
	t.Run("ErrViolation", func(t *testing.T) {
		for _, doc := range []string{`{"facts":"a"}`, `{}`, `{"facts":[1]}`, `{"facts":[],"extra":1}`, `[]`} {
			err := provider.Validate(factsSchema, []byte(doc))
			if !errors.Is(err, provider.ErrMalformed) {
				t.Errorf("Validate(%s) = %v, want ErrMalformed", doc, err)
				continue
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 300 || !strings.Contains(msg, "violates schema facts") {
				t.Errorf("Validate(%s) message = %q, want one short line", doc, msg)
			}
		}
	})
	t.Run("ErrPath", func(t *testing.T) {
		err := provider.Validate(factsSchema, []byte(`{"facts":[1]}`))
		if got := err.Error(); !strings.Contains(got, "/properties/facts/items") {
			t.Errorf("message = %q, want the failing schema location", got)
		}
	})
	t.Run("ErrNotJSON", func(t *testing.T) {
		if err := provider.Validate(factsSchema, []byte(`{"facts":`)); !errors.Is(err, provider.ErrMalformed) {
			t.Errorf("err = %v, want ErrMalformed", err)
		}
	})
	t.Run("ErrBadSchema", func(t *testing.T) {
		err := provider.Validate(&memory.Schema{Name: "bad", JSON: []byte(`{"type": 12}`)}, []byte(`{}`))
		if got, want := memory.ErrorCode(err), memory.EINVALID; got != want {
			t.Errorf("code = %q, want %q (%v)", got, want, err)
		}
		if errors.Is(err, provider.ErrMalformed) {
			t.Error("a broken schema is not a malformed answer")
		}
	})
}

func TestSchemaPrompt(t *testing.T) {
	s := &memory.Schema{Name: "facts", Description: "Facts in the text.", JSON: factsSchema.JSON}
	got := provider.SchemaPrompt(s)
	for _, want := range []string{`"facts"`, "Facts in the text.", `"required":["facts"]`, "JSON"} {
		if !strings.Contains(got, want) {
			t.Errorf("SchemaPrompt = %q, want it to contain %q", got, want)
		}
	}
	if provider.SchemaPrompt(nil) != "" {
		t.Error("SchemaPrompt(nil) is not empty")
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, "```json\n[1,2]\n```", `text {"x": "}"} more`, "<think>{</think>{}",
		`[[[[`, `{"a": "\"}`, "}{", "```\n{\n```", "</think>[true]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := provider.ExtractJSON(s)
		if err != nil {
			if !errors.Is(err, provider.ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
			return
		}
		if !json.Valid(doc) {
			t.Fatalf("ExtractJSON(%q) = %q, not valid JSON", s, doc)
		}
		if doc[0] != '{' && doc[0] != '[' {
			t.Fatalf("ExtractJSON(%q) = %q, not an object or array", s, doc)
		}
		if !strings.Contains(provider.StripThink(s), string(doc)) {
			t.Fatalf("ExtractJSON(%q) = %q, not taken from the input", s, doc)
		}
	})
}

func FuzzStripThink(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "<think>", "</think>x", "a<think>b", "<think><think></think></think>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := provider.StripThink(s)
		if len(got) > len(s) {
			t.Fatalf("StripThink(%q) = %q, longer than its input", s, got)
		}
		if !strings.Contains(s, "<think>") && !strings.Contains(s, "</think>") && got != strings.TrimSpace(s) {
			t.Fatalf("StripThink(%q) = %q, changed text without tags", s, got)
		}
	})
}

func ExampleExtractJSON() {
	doc, err := provider.ExtractJSON("<think>the user wants JSON</think>Sure:\n```json\n{\"facts\": [\"Lena has a cat\"]}\n```")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(doc))
	// Output: {"facts": ["Lena has a cat"]}
}

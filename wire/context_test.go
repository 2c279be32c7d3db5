package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// RenderContext prints each format as its doors show it: text and
// Markdown headings per section, JSON as the shape itself; an empty
// context is "" in text and Markdown; an unknown format is EINVALID.
func TestRenderContext(t *testing.T) {
	c := &wire.Context{Bank: "b", Budget: 100, Sections: []wire.ContextSection{
		{Name: wire.SectionBlocks, Items: []wire.ContextItem{{Kind: wire.ItemBlock, Name: "user_profile", Text: "Name: Alice.\nLikes tea."}}},
		{Name: wire.SectionDirectives, Items: []wire.ContextItem{{Kind: wire.ItemDirective, ID: "dir_1", Text: "Answer in\nBritish English.", Scopes: []string{"web"}}}},
		{Name: wire.SectionObservations, Items: []wire.ContextItem{{Kind: wire.ItemObservation, ID: "o1", Label: "pattern", Text: "Alice walks daily.", Previously: []string{"Alice walked weekly. (changed 2024-01-02)"}}}},
		{Name: wire.SectionFacts, Items: []wire.ContextItem{{Kind: wire.ItemFact, ID: "f1", Text: "[2024-03-04] Alice adopted a puppy."}}},
	}}
	text, err := wire.RenderContext(c, memory.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	want := "Memory blocks:\n[user_profile]\n  Name: Alice.\n  Likes tea.\n\nDirectives (always follow these):\n- Answer in British English. [web]\n\nWhat is known:\n- Alice walks daily. (pattern)\n  previously: Alice walked weekly. (changed 2024-01-02)\n\nRelevant memories:\n- [2024-03-04] Alice adopted a puppy.\n"
	if text != want {
		t.Errorf("text:\n%q\nwant\n%q", text, want)
	}
	md, err := wire.RenderContext(c, memory.FormatMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	wantMD := "## Memory blocks\n\n### user_profile\n\nName: Alice.\nLikes tea.\n\n## Directives (always follow these)\n\n- Answer in British English. [web]\n\n## What is known\n\n- **Alice walks daily.** (pattern)\n  - *previously:* Alice walked weekly. (changed 2024-01-02)\n\n## Relevant memories\n\n- [2024-03-04] Alice adopted a puppy.\n"
	if md != wantMD {
		t.Errorf("markdown:\n%q\nwant\n%q", md, wantMD)
	}
	js, err := wire.RenderContext(c, memory.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	var back wire.Context
	if err := json.Unmarshal([]byte(js), &back); err != nil || len(back.Sections) != 4 || back.Sections[1].Items[0].Scopes[0] != "web" {
		t.Errorf("json %q: %v", js, err)
	}
	for _, f := range []string{memory.FormatText, memory.FormatMarkdown} {
		if s, err := wire.RenderContext(&wire.Context{Bank: "b"}, f); s != "" || err != nil {
			t.Errorf("empty %s context = %q, %v", f, s, err)
		}
	}
	if s, _ := wire.RenderContext(&wire.Context{Bank: "b", Budget: 5}, memory.FormatJSON); s != "{\"bank\":\"b\",\"budget\":5,\"sections\":[]}\n" {
		t.Errorf("empty json context = %q", s)
	}
	if _, err := wire.RenderContext(c, "yaml"); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("yaml: %v", err)
	}
}

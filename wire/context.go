package wire

import (
	"encoding/json"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// Context section names, in the order a context shows them.
const (
	SectionBlocks       = "blocks"
	SectionDirectives   = "directives"
	SectionStanding     = "standing"
	SectionObservations = "observations"
	SectionFacts        = "facts"
)

// Context item kinds.
const (
	ItemBlock       = "block"
	ItemDirective   = "directive"
	ItemStanding    = "standing"
	ItemObservation = "observation"
	ItemFact        = "fact"
)

// Context is a session's memory context (`mnemo context`, GET
// /v1/banks/{bank}/context, the MCP prompt and resource): its sections
// in a stable order (SectionBlocks, SectionDirectives, SectionStanding,
// SectionObservations, SectionFacts), each a list of whole items. A
// section with no item is left out. RenderContext prints it; every door
// prints what it returns, so they all give the same bytes.
type Context struct {
	Bank string `json:"bank"`
	// Budget is the token budget the rendered context fits in.
	Budget   int              `json:"budget"`
	Sections []ContextSection `json:"sections"`
}

// ContextSection is one section of a context.
type ContextSection struct {
	Name  string        `json:"name"`
	Items []ContextItem `json:"items"`
}

// ContextItem is one memory of a context: a block (Name, Label and its
// value as Text), a directive (Scopes), an observation (Label: its kind)
// or a fact, already formatted (its date and speaker before the text).
// Previously is its history, newest first: what it said before.
type ContextItem struct {
	Kind       string   `json:"kind"`
	ID         string   `json:"id,omitempty"`
	Name       string   `json:"name,omitempty"`
	Label      string   `json:"label,omitempty"`
	Text       string   `json:"text"`
	Scopes     []string `json:"scopes,omitempty"`
	Previously []string `json:"previously,omitempty"`
}

// sectionTitles are the sections' headings.
var sectionTitles = map[string]string{
	SectionBlocks:       "Memory blocks",
	SectionDirectives:   "Directives (always follow these)",
	SectionStanding:     "Standing answers",
	SectionObservations: "What is known",
	SectionFacts:        "Relevant memories",
}

// RenderContext prints c in format: memory.FormatText (the default when
// empty), memory.FormatMarkdown or memory.FormatJSON (one line, c's
// shape). A text or Markdown context with no section is "", so a caller
// can print it and add nothing; a JSON one is still a document. Another
// format is EINVALID.
func RenderContext(c *Context, format string) (string, error) {
	switch format {
	case "", memory.FormatText:
		return renderLines(c, false), nil
	case memory.FormatMarkdown:
		return renderLines(c, true), nil
	case memory.FormatJSON:
		out := *c
		if out.Sections == nil {
			out.Sections = []ContextSection{}
		}
		b, err := json.Marshal(&out)
		if err != nil {
			return "", err
		}
		return string(b) + "\n", nil
	}
	return "", memory.Errorf(memory.EINVALID, "context format %q: use text, markdown or json", format)
}

// renderLines prints c as text or Markdown: a heading per section, a
// bullet per item (a block is its name and its value).
func renderLines(c *Context, md bool) string {
	var b strings.Builder
	for i, s := range c.Sections {
		if len(s.Items) == 0 {
			continue
		}
		if i > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
			b.WriteString("\n")
		}
		title := sectionTitles[s.Name]
		if title == "" {
			title = s.Name
		}
		if md {
			b.WriteString("## " + title + "\n\n")
		} else {
			b.WriteString(title + ":\n")
		}
		for _, it := range s.Items {
			b.WriteString(renderItem(it, md))
		}
	}
	return b.String()
}

// renderItem prints one item as its lines.
func renderItem(it ContextItem, md bool) string {
	var b strings.Builder
	switch it.Kind {
	case ItemBlock:
		if md {
			b.WriteString("### " + it.Name + "\n\n" + strings.TrimRight(it.Text, "\n") + "\n\n")
		} else {
			b.WriteString("[" + it.Name + "]\n" + indent(strings.TrimRight(it.Text, "\n")) + "\n")
		}
		return b.String()
	case ItemStanding:
		if md {
			b.WriteString("- **" + oneLine(it.Label) + "** " + oneLine(it.Text) + "\n")
		} else {
			b.WriteString("- " + oneLine(it.Label) + " " + oneLine(it.Text) + "\n")
		}
		return b.String()
	case ItemObservation:
		if md {
			b.WriteString("- **" + oneLine(it.Text) + "**")
		} else {
			b.WriteString("- " + oneLine(it.Text))
		}
		if it.Label != "" {
			b.WriteString(" (" + it.Label + ")")
		}
		b.WriteString("\n")
	default:
		b.WriteString("- " + oneLine(it.Text))
		if it.Kind == ItemDirective && len(it.Scopes) > 0 {
			b.WriteString(" [" + strings.Join(it.Scopes, ", ") + "]")
		}
		b.WriteString("\n")
	}
	for _, p := range it.Previously {
		if md {
			b.WriteString("  - *previously:* " + oneLine(p) + "\n")
		} else {
			b.WriteString("  previously: " + oneLine(p) + "\n")
		}
	}
	return b.String()
}

// indent puts two spaces before every line of s.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// oneLine folds s's line breaks into spaces: a bullet is one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

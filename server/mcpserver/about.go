package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of the about tool.
const (
	DefaultAboutFacts = 20  // newest facts read
	MaxAboutFacts     = 100 // newest facts read at most
	MaxAboutRelations = 50  // relations shown at most
)

// AboutInput are the arguments of the about tool.
type AboutInput struct {
	Name   string `json:"name" jsonschema:"the person, place, organisation or thing, by name or alias, e.g. 'Alice' or 'Project X'"`
	Limit  int    `json:"limit,omitempty" jsonschema:"newest facts to read, 1-100; default 20"`
	Budget int    `json:"budget,omitempty" jsonschema:"most tokens of the answer (text and structured result together), 200-8000; default 1500: the oldest facts that do not fit are left out"`
	Bank   string `json:"bank,omitempty" jsonschema:"memory bank; omit to use the server's default bank"`
}

// aboutDescription is the about tool's description.
const aboutDescription = `Everything memory holds about one person, place, organisation or thing: the entity, its newest facts, and its relations to other entities (who works where, who is married to whom) with when each held and whether it still does.

Use it when a question is about one named entity ("what do we know about Alice?"); use recall for questions across entities or about events.`

// addAbout registers the about tool.
func (s *Server) addAbout() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "about",
		Title:       "About an entity",
		Description: aboutDescription,
		Annotations: &mcp.ToolAnnotations{Title: "About an entity", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in AboutInput) (*mcp.CallToolResult, *wire.About, error) {
		out, text, err := s.about(ctx, req, in)
		if err != nil {
			return nil, nil, s.toolError("about", err)
		}
		return textResult(text), out, nil
	})
}

// about reads the entity in.Name and keeps, newest first, the facts that
// fit the budget with its relations (at most MaxAboutRelations).
func (s *Server) about(ctx context.Context, req *mcp.CallToolRequest, in AboutInput) (*wire.About, string, error) {
	bank, err := s.bank(ctx, req, in.Bank)
	if err != nil {
		return nil, "", err
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, "", memory.Errorf(memory.EINVALID, "name is empty: say whom or what to look up")
	}
	limit, budget := in.Limit, in.Budget
	if limit == 0 {
		limit = DefaultAboutFacts
	}
	if budget == 0 {
		budget = DefaultRecallBudget
	}
	switch {
	case limit < 1 || limit > MaxAboutFacts:
		return nil, "", memory.Errorf(memory.EINVALID, "limit %d: use 1 to %d facts", limit, MaxAboutFacts)
	case budget < MinRecallBudget || budget > MaxRecallBudget:
		return nil, "", memory.Errorf(memory.EINVALID, "budget %d: use %d to %d tokens", budget, MinRecallBudget, MaxRecallBudget)
	}
	a, err := s.eng.About(ctx, bank, in.Name, limit)
	if err != nil {
		return nil, "", err
	}
	all := wire.NewAbout(a)
	out := wire.About{Entity: all.Entity, Facts: []wire.Fact{}, Relations: all.Relations}
	if len(out.Relations) > MaxAboutRelations {
		out.Relations = out.Relations[:MaxAboutRelations]
	}
	head := aboutHead(&out)
	var lines strings.Builder
	used := countTokens(head) + jsonTokens(out)
	for _, f := range all.Facts {
		line := "- " + factLine(f) + "\n"
		cost := countTokens(line) + jsonTokens(f)
		if used+cost > budget && len(out.Facts) > 0 {
			break
		}
		used += cost
		out.Facts = append(out.Facts, f)
		lines.WriteString(line)
	}
	text := head + lines.String()
	if n := len(all.Facts) - len(out.Facts); n > 0 {
		text += fmt.Sprintf("(%d older facts left out to stay within %d tokens; use recall for them.)\n", n, budget)
	}
	return &out, text, nil
}

// aboutHead is the text of an about's entity and relations.
func aboutHead(a *wire.About) string {
	var b strings.Builder
	e := a.Entity
	fmt.Fprintf(&b, "%s (%s), mentioned %s", e.Name, e.Type, count(e.Mentions, "time", "times"))
	if len(e.Aliases) > 0 {
		fmt.Fprintf(&b, ", also called %s", strings.Join(e.Aliases, ", "))
	}
	b.WriteString(".\n")
	if len(a.Relations) > 0 {
		b.WriteString("Relations:\n")
		for _, r := range a.Relations {
			fmt.Fprintf(&b, "- %s %s %s", r.SubjectName, r.Predicate, r.ObjectName)
			if r.ValidFrom != nil {
				fmt.Fprintf(&b, " since %s", r.ValidFrom.Format("2006-01-02"))
			}
			if r.ValidTo != nil {
				fmt.Fprintf(&b, " until %s", r.ValidTo.Format("2006-01-02"))
			}
			if !r.Current {
				b.WriteString(" (no longer)")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("Facts, newest first:\n")
	return b.String()
}

// factLine is one fact as the model reads it: its date, speaker and text.
func factLine(f wire.Fact) string {
	var b strings.Builder
	if f.OccurredStart != nil {
		b.WriteString(f.OccurredStart.Format("2006-01-02") + " ")
	}
	if f.Speaker != "" {
		b.WriteString(f.Speaker + ": ")
	}
	b.WriteString(truncate(oneLine(f.Text), 500))
	return b.String()
}

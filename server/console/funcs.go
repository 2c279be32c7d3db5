package console

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"iso": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	},
	"page": pageURL,
	"f2":   func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"join": strings.Join,
	"explain": func(r memory.Result, strategy string) string {
		s, ok := r.Explain[strategy]
		if !ok {
			return "—"
		}
		return fmt.Sprintf("#%d · %.3f", s.Rank, s.Score)
	},
}

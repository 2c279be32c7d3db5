package recall

import (
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// analysis is what the strategies need of the query.
type analysis struct {
	memory.QueryAnalysis
	words    []string // all words, lower case
	window   bool
	count    bool // the query counts: "how many"
	entities []*memory.Entity
	// facts are the facts the context strategy loaded, by id, that pass
	// the query's filter: Recall need not load them again.
	facts map[string]*memory.Fact
}

// analyse finds the keyword terms and the time window of a query, and
// whether it counts. The entities it names are found beside the
// strategies (mentions, names.go).
func (p *Pipeline) analyse(q memory.Query) analysis {
	a := analysis{words: lex.Words(q.Text)}
	for i := 0; i+1 < len(a.words); i++ {
		if a.words[i] == "how" && a.words[i+1] == "many" {
			a.count = true
		}
	}
	seen := map[string]bool{}
	for _, w := range a.words {
		if lex.IsStopword(w) || seen[w] {
			continue
		}
		seen[w] = true
		a.Terms = append(a.Terms, w)
	}
	if p.ResolveTime != nil {
		if from, to, ok := p.ResolveTime(q.Text, q.Now); ok {
			a.From, a.To, a.window = from, to, true
		}
	}
	return a
}

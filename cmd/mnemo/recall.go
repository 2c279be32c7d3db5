package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/spf13/cobra"
)

// recallResultJSON is one result of `mnemo recall --json`; the field set
// is a contract scripts rely on.
type recallResultJSON struct {
	ID         string                          `json:"id"`
	Text       string                          `json:"text"`
	Score      float64                         `json:"score"`
	OccurredAt *time.Time                      `json:"occurred_at"`
	Speaker    string                          `json:"speaker"`
	Explain    map[string]memory.StrategyScore `json:"explain,omitempty"`
}

type recallJSON struct {
	Results []recallResultJSON `json:"results"`
	Context string             `json:"context"`
}

func newRecallCmd(g *globals) *cobra.Command {
	var limit, budget int
	var explain bool
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Recall what is relevant to a query",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			rec, err := eng.Recall(cmd.Context(), memory.Query{
				BankID: g.bank, Text: strings.Join(args, " "), Limit: limit, Budget: budget, Explain: explain,
			})
			if err != nil {
				return err
			}
			if g.json {
				out := recallJSON{Results: make([]recallResultJSON, 0, len(rec.Results)), Context: rec.Context}
				for _, r := range rec.Results {
					j := recallResultJSON{ID: r.Fact.ID, Text: r.Fact.Text, Score: r.Score, Speaker: r.Fact.Speaker, Explain: r.Explain}
					if t := r.Fact.EventTime(); !t.IsZero() {
						j.OccurredAt = &t
					}
					out.Results = append(out.Results, j)
				}
				return g.printJSON(out)
			}
			if len(rec.Results) == 0 {
				fmt.Fprintln(g.stdout, "nothing relevant remembered")
				return nil
			}
			for i, r := range rec.Results {
				when := ""
				if t := r.Fact.EventTime(); !t.IsZero() {
					when = t.Format("2006-01-02") + " "
				}
				who := ""
				if r.Fact.Speaker != "" {
					who = r.Fact.Speaker + ": "
				}
				fmt.Fprintf(g.stdout, "%2d. %.4f  %s%s%s\n", i+1, r.Score, when, who, r.Fact.Text)
				if explain {
					for _, s := range []string{memory.StrategyKeyword, memory.StrategySemantic, memory.StrategyGraph, memory.StrategyTemporal} {
						if e, ok := r.Explain[s]; ok {
							fmt.Fprintf(g.stdout, "      %-8s rank %3d  score %.4f\n", s, e.Rank, e.Score)
						}
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", memory.DefaultRecallLimit, "number of results")
	cmd.Flags().IntVar(&budget, "budget", memory.DefaultTokenBudget, "token budget of the context")
	cmd.Flags().BoolVar(&explain, "explain", false, "show each result's rank and score per strategy")
	return cmd
}

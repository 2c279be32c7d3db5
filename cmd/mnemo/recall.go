package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newRecallCmd(g *globals) *cobra.Command {
	var limit, budget int
	var explain, history, sensitive bool
	var asOf, format string
	var categories []string
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Recall what is relevant to a query",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			q := memory.Query{BankID: g.bank, Text: strings.Join(args, " "), Limit: limit, Budget: budget, Explain: explain, Format: format}
			if history {
				q.Filter.Statuses = []memory.Status{memory.StatusActive, memory.StatusSuperseded}
			}
			q.Filter.Sensitive = sensitive
			for _, c := range categories {
				q.Filter.Categories = append(q.Filter.Categories, memory.Category(c))
			}
			if asOf != "" {
				t, err := wire.ParseTime(asOf)
				if err != nil {
					return err
				}
				q.Filter.AsOf = t
			}
			rec, err := eng.Recall(cmd.Context(), q)
			if err != nil {
				return err
			}
			if err := g.prov.rerankFailure(); err != nil {
				fmt.Fprintf(g.stderr, "mnemo: warning: --rerank %s failed, results are not reranked: %v\n", g.prov.rerank, err)
			}
			if g.json {
				return g.printJSON(wire.NewRecall(rec))
			}
			if format != "" {
				// The context itself, ready for a system prompt.
				fmt.Fprint(g.stdout, rec.Context)
				if rec.Context != "" && !strings.HasSuffix(rec.Context, "\n") {
					fmt.Fprintln(g.stdout)
				}
				return nil
			}
			if s := rec.Standing; s != nil { // standing.go
				fmt.Fprintf(g.stdout, " =  standing answer (%s): %s\n", s.AnsweredAt.Local().Format(time.DateTime), oneLine(s.Answer))
			}
			for _, o := range rec.Observations {
				fmt.Fprintf(g.stdout, " *  %.4f  (%s) %s\n", o.Score, o.Observation.Kind, o.Observation.Text)
				for _, f := range o.Facts {
					fmt.Fprintf(g.stdout, "      %s\n", memory.FormatFact(f))
				}
			}
			if len(rec.Results) == 0 && len(rec.Observations) == 0 {
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
				status := ""
				if r.Fact.Status != memory.StatusActive && r.Fact.Status != "" {
					status = " [" + string(r.Fact.Status) + "]"
				}
				if r.Tier == memory.TierShortTerm {
					status += " " + memory.ShortTermMark
				}
				fmt.Fprintf(g.stdout, "%2d. %.4f  %s%s%s%s\n", i+1, r.Score, when, who, r.Fact.Text, status)
				for _, p := range r.Previously {
					fmt.Fprintf(g.stdout, "      %s\n", memory.FormatPrevious(p))
				}
				if explain {
					for _, s := range slices.Sorted(maps.Keys(r.Explain)) {
						e := r.Explain[s]
						fmt.Fprintf(g.stdout, "      %-8s rank %3d  score %.4f\n", s, e.Rank, e.Score)
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", memory.DefaultRecallLimit, "number of results")
	cmd.Flags().IntVar(&budget, "budget", memory.DefaultTokenBudget, "token budget of the context")
	cmd.Flags().BoolVar(&explain, "explain", false, "show each result's rank and score per strategy")
	cmd.Flags().BoolVar(&history, "history", false, "include superseded facts")
	cmd.Flags().BoolVar(&sensitive, "sensitive", false, "include facts classified sensitive")
	cmd.Flags().StringVar(&format, "format", "", "print the packed context instead of the ranked list: text, markdown or json")
	cmd.Flags().StringSliceVar(&categories, "category", nil, "only facts of these categories (repeatable or comma-separated; any of them)")
	cmd.Flags().StringVar(&asOf, "as-of", "", "answer from what was known at this time (RFC 3339 or YYYY-MM-DD[ HH:MM])")
	return cmd
}

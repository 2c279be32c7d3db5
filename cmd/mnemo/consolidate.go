package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newConsolidateCmd is `mnemo consolidate`: one pass now, its run record
// printed.
func newConsolidateCmd(g *globals) *cobra.Command {
	var pass string
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Run a consolidation pass over the bank now and print its run record",
		Long: `Run one consolidation pass over the bank now and print its run record
(also listed by "mnemo runs").

Passes: ` + strings.Join(mnemo.Passes, ", ") + `. The lifecycle pass needs no LLM: it
recomputes every fact's decay score and every entity's salience and tier
(L0, L1, L2), logging each promotion and demotion. The expire pass needs
none either: it makes the expired short-term facts (retain --short-term)
that were recalled or are important long-term, and deletes the rest.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			r, err := eng.Consolidate(cmd.Context(), g.bank, pass)
			if r != nil {
				if perr := printRun(g, r); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&pass, "pass", mnemo.PassLifecycle, "the pass to run ("+strings.Join(mnemo.Passes, ", ")+")")
	return cmd
}

// printRun prints one run record as JSON or as a few lines.
func printRun(g *globals, r *memory.Run) error {
	if g.json {
		return g.printJSON(wire.NewRun(r))
	}
	fmt.Fprintf(g.stdout, "%s %s: %s%s\n", r.Pass, r.ID, r.Status, runDetail(r))
	for _, k := range slices.Sorted(maps.Keys(r.Counts)) {
		fmt.Fprintf(g.stdout, "  %-17s %d\n", k, r.Counts[k])
	}
	return nil
}

// runDetail is the reason or error of a run, after a colon, or its
// duration.
func runDetail(r *memory.Run) string {
	switch {
	case r.Error != "":
		return ": " + oneLine(r.Error)
	case r.Reason != "":
		return ": " + r.Reason
	case !r.FinishedAt.IsZero():
		return " in " + r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
	}
	return ""
}

// newRunsCmd is `mnemo runs`: the bank's consolidation runs, newest
// first.
func newRunsCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List the bank's consolidation runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			rs, err := eng.Runs(cmd.Context(), g.bank, limit)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewRunList(rs))
			}
			if len(rs) == 0 {
				fmt.Fprintf(g.stdout, "no consolidation runs in bank %s\n", g.bank)
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tPASS\tSTATUS\tSTARTED\tDETAIL")
			for _, r := range rs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Pass, r.Status, r.StartedAt.Local().Format(time.DateTime), strings.TrimPrefix(strings.TrimPrefix(runDetail(r), ": "), " "))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many runs to list (0: all)")
	return cmd
}

// newTiersCmd is `mnemo tiers`: the bank's tier stats.
func newTiersCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "tiers",
		Short: "Count the bank's entities per memory tier (L0, L1, L2)",
		Long: `Count the bank's entities per memory tier as the last lifecycle pass left
them: L0 (episodic), L1 (semantic), L2 (pattern), with those of low
salience and the L0 entities eligible for early promotion.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			st, err := eng.Tiers(cmd.Context(), g.bank)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewTiers(st))
			}
			fmt.Fprintf(g.stdout, "bank %s\n  L0 (episodic)    %d\n  L1 (semantic)    %d\n  L2 (pattern)     %d\n  low salience     %d\n  early promotion  %d\n",
				g.bank, st.L0, st.L1, st.L2, st.LowSalience, st.EarlyPromotion)
			return nil
		},
	}
}

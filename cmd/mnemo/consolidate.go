package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newConsolidateCmd is `mnemo consolidate`: every pass, or one, now,
// with the run records printed; `mnemo consolidate settings` shows and
// changes the bank's consolidation settings.
func newConsolidateCmd(g *globals) *cobra.Command {
	var pass string
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Run consolidation over the bank now and print the run records",
		Long: `Run consolidation over the bank now — every pass in order, or the one
--pass names — and print the run records (also listed by "mnemo runs").

Passes, in order: ` + strings.Join(mnemo.Passes, ", ") + `.
A pass that needs an LLM reports "skipped: no LLM configured" without
one. The merge, archive, expire and lifecycle passes need none: the
lifecycle recomputes every fact's decay score and every entity's salience
and tier (L0, L1, L2), logging each promotion and demotion.

"mnemo consolidate settings" lists the numbers and triggers the passes
use, and changes them for this bank.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			if pass != "" {
				r, err := eng.Consolidate(cmd.Context(), g.bank, pass)
				if r != nil {
					if perr := printRun(g, r); perr != nil && err == nil {
						err = perr
					}
				}
				return err
			}
			rs, err := eng.ConsolidateAll(cmd.Context(), g.bank)
			if g.json {
				if perr := g.printJSON(wire.NewRunList(rs)); perr != nil && err == nil {
					err = perr
				}
				return err
			}
			for _, r := range rs {
				if perr := printRun(g, r); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&pass, "pass", "", "run only this pass ("+strings.Join(mnemo.Passes, ", ")+")")
	cmd.AddCommand(newConsolidateSettingsCmd(g))
	return cmd
}

// newConsolidateSettingsCmd is `mnemo consolidate settings`: the bank's
// consolidation numbers and triggers, and --set / --reset to override
// them.
func newConsolidateSettingsCmd(g *globals) *cobra.Command {
	var set, reset []string
	cmd := &cobra.Command{
		Use:   "settings",
		Short: "List the bank's consolidation settings; --set NAME=VALUE overrides one",
		Long: `List every number and trigger consolidation uses for the bank, with its
value and whether the bank overrides it. --set NAME=VALUE overrides one
for this bank (repeatable); --reset NAME goes back to the default.

Values: durations as 72h, 90m, 30d or off (a trigger), daily_at as a
time of day (04:30); numbers; switches on/off; lists a,b,c; timezone as
an IANA name (Europe/Paris).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			patch := map[string]string{}
			for _, kv := range set {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
					return memory.Errorf(memory.EINVALID, "--set %q: want NAME=VALUE", kv)
				}
				patch[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			for _, k := range reset {
				patch[k] = ""
			}
			var knobs []consolidate.Knob
			if len(patch) > 0 {
				knobs, err = eng.SetConsolidationSettings(ctx, g.bank, patch)
			} else {
				knobs, err = eng.ConsolidationSettings(ctx, g.bank)
			}
			if err != nil {
				return err
			}
			out := wire.NewConsolidationSettings(knobs)
			if g.json {
				return g.printJSON(out)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVALUE\tKIND\t")
			for _, k := range out.Settings {
				mark := ""
				if k.Overridden {
					mark = "(bank)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Name, k.Value, k.Kind, mark)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringArrayVar(&set, "set", nil, "override a setting for this bank: NAME=VALUE (repeatable)")
	cmd.Flags().StringArrayVar(&reset, "reset", nil, "go back to the default of a setting (repeatable)")
	return cmd
}

// printRun prints one run record as JSON or as a few lines.
func printRun(g *globals, r *memory.Run) error {
	if g.json {
		return g.printJSON(wire.NewRun(r))
	}
	fmt.Fprintf(g.stdout, "%s %s: %s%s\n", r.Pass, r.ID, r.Status, runDetail(r))
	width := 0
	for k := range r.Counts {
		width = max(width, len(k))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Counts)) {
		fmt.Fprintf(g.stdout, "  %-*s %d\n", width, k, r.Counts[k])
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

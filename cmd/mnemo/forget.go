package main

import (
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newForgetCmd(g *globals) *cobra.Command {
	var sel mnemo.ForgetSelector
	var from, to, actor string
	var log bool
	cmd := &cobra.Command{
		Use:   "forget [--id ID ...] [--query Q] [--entity NAME] [--document ID] [--from T --to T] [--dry-run]",
		Short: "Forget facts for good, with every trace of them (--dry-run lists what would go)",
		Long: `Forget the facts of --bank that every selector given matches: ids,
the facts a recall of --query returns (at most --limit), the facts that
mention --entity, the facts of --document, the facts whose event time is
in [--from, --to). The facts go with every trace: search indexes, entity
mentions, links, relation support, observation sources, their chunks.
An audit record keeps who, when, the selector and the counts, never the
text; --log lists them. Try --dry-run first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			if log {
				recs, err := eng.ForgetLog(cmd.Context(), g.bank, sel.Limit)
				if err != nil {
					return err
				}
				out := wire.NewForgetRecords(recs)
				if g.json {
					return g.printJSON(out)
				}
				for _, r := range out {
					fmt.Fprintf(g.stdout, "%s  %s  %s  %d facts\n", r.At.Format(time.RFC3339), r.ID, r.Actor, r.Counts.Facts)
				}
				return nil
			}
			for _, t := range []struct {
				s   string
				dst *time.Time
			}{{from, &sel.From}, {to, &sel.To}} {
				if t.s == "" {
					continue
				}
				if *t.dst, err = wire.ParseTime(t.s); err != nil {
					return memory.Errorf(memory.EINVALID, "forget: %v", err)
				}
			}
			sel.Actor = actor
			res, err := eng.Forget(cmd.Context(), g.bank, sel)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewForget(res))
			}
			if res.DryRun {
				for _, f := range res.Facts {
					fmt.Fprintf(g.stdout, "%s  %s\n", f.ID, f.Text)
				}
				fmt.Fprintf(g.stdout, "%d fact(s) would be forgotten\n", len(res.Facts))
				return nil
			}
			c := res.Counts
			fmt.Fprintf(g.stdout, "forgot %d fact(s): %d link(s), %d entit(ies), %d relation(s), %d observation(s), %d chunk(s), %d document(s) removed; record %s\n",
				c.Facts, c.Links, c.Entities, c.Relations, c.Observations, c.Chunks, c.Documents, res.Record)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&sel.IDs, "id", nil, "a fact id (repeatable)")
	f.StringVar(&sel.Query, "query", "", "forget what a recall of this query returns")
	f.IntVar(&sel.Limit, "limit", 0, fmt.Sprintf("facts a --query selects (default %d); records --log lists (default all)", mnemo.DefaultForgetQueryLimit))
	f.StringVar(&sel.Entity, "entity", "", "forget the facts that mention this entity (name or alias)")
	f.StringVar(&sel.Document, "document", "", "forget the facts of this document id")
	f.StringVar(&sel.Source, "source", "", "with --item: the document by source and item")
	f.StringVar(&sel.Item, "item", "", "with --source: the document by source and item")
	f.StringVar(&from, "from", "", "event time from (inclusive)")
	f.StringVar(&to, "to", "", "event time to (exclusive)")
	f.BoolVar(&sel.DryRun, "dry-run", false, "list what would be forgotten, change nothing")
	f.StringVar(&actor, "actor", "cli", "who asks, for the audit record")
	f.BoolVar(&log, "log", false, "list the bank's forget audit records instead")
	return cmd
}

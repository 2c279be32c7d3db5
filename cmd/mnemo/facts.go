package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newFactsCmd is `mnemo facts`: list, show, invalidate and restore facts.
func newFactsCmd(g *globals) *cobra.Command {
	list := newFactsListCmd(g)
	cmd := &cobra.Command{
		Use:   "facts",
		Short: "List, show, invalidate and restore facts (list is the default)",
		Args:  cobra.NoArgs,
		RunE:  list.RunE,
	}
	cmd.Flags().AddFlagSet(list.Flags())
	cmd.AddCommand(list, newFactsShowCmd(g), newFactsStatusCmd(g, "invalidate", memory.StatusArchived), newFactsStatusCmd(g, "restore", memory.StatusActive))
	return cmd
}

// newFactsListCmd is `mnemo facts list`.
func newFactsListCmd(g *globals) *cobra.Command {
	var kinds, categories, statuses, tags []string
	var speaker, source, from, to, cursor string
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List a bank's facts, newest first, a page at a time",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			q := memory.FactQuery{Tags: tags, Speaker: speaker, Source: source, Limit: limit, Cursor: cursor}
			for _, k := range kinds {
				q.Kinds = append(q.Kinds, memory.FactKind(k))
			}
			for _, c := range categories {
				q.Categories = append(q.Categories, memory.Category(c))
			}
			for _, s := range statuses {
				q.Statuses = append(q.Statuses, memory.Status(s))
			}
			var err error
			if from != "" {
				if q.From, err = wire.ParseTime(from); err != nil {
					return usagef("--from: %v", err)
				}
			}
			if to != "" {
				if q.To, err = wire.ParseTime(to); err != nil {
					return usagef("--to: %v", err)
				}
			}
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			page, err := eng.Facts(cmd.Context(), g.bank, q)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewFactPage(page))
			}
			for _, f := range page.Facts {
				fmt.Fprintf(g.stdout, "%s  %-10s  %s%s\n", f.ID, f.Status, oneLine(f.Body()), shortTermMark(f))
			}
			if page.Next != "" {
				fmt.Fprintf(g.stdout, "more: --cursor %s\n", page.Next)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&kinds, "kind", nil, "only facts of these kinds (world, experience)")
	f.StringSliceVar(&categories, "category", nil, "only facts of these categories")
	f.StringSliceVar(&statuses, "status", nil, "only facts of these statuses (active, superseded, archived, quarantined); default all")
	f.StringSliceVar(&tags, "tag", nil, "only facts with any of these tags")
	f.StringVar(&speaker, "speaker", "", "only facts of this speaker")
	f.StringVar(&source, "source", "", "only facts of items from this source (chat, note, email, …)")
	f.StringVar(&from, "from", "", "only facts whose event time is at or after this time")
	f.StringVar(&to, "to", "", "only facts whose event time is before this time")
	f.IntVar(&limit, "limit", memory.DefaultPageSize, fmt.Sprintf("facts per page (at most %d)", memory.MaxPageSize))
	f.StringVar(&cursor, "cursor", "", "the cursor a previous page printed")
	return cmd
}

// newFactsShowCmd is `mnemo facts show ID`.
func newFactsShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show one fact with the versions it replaced and that replaced it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			d, err := eng.Fact(cmd.Context(), g.bank, args[0])
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewFactDetail(d.Fact, d.Previous, d.Next))
			}
			f := d.Fact
			fmt.Fprintf(g.stdout, "%s (%s, %s, %s)\n  %s\n", f.ID, f.Status, f.Kind, f.Category, oneLine(f.Body()))
			if t := f.EventTime(); !t.IsZero() {
				fmt.Fprintf(g.stdout, "  event time %s\n", t.Format("2006-01-02 15:04"))
			}
			if f.ShortTerm() {
				fmt.Fprintf(g.stdout, "  short-term: expires %s\n", f.ExpiresAt.UTC().Format(time.RFC3339))
			}
			for _, n := range d.Next {
				fmt.Fprintf(g.stdout, "  replaced by %s: %s\n", n.ID, oneLine(n.Body()))
			}
			for _, p := range d.Previous {
				fmt.Fprintf(g.stdout, "  replaced %s: %s\n", p.ID, oneLine(p.Body()))
			}
			return nil
		},
	}
}

// newFactsStatusCmd is `mnemo facts invalidate ID...` (to archived) or
// `mnemo facts restore ID...` (to active).
func newFactsStatusCmd(g *globals, name string, to memory.Status) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   name + " ID...",
		Short: map[memory.Status]string{memory.StatusArchived: "Take facts out of recall, reversibly (restore brings them back)", memory.StatusActive: "Bring invalidated facts back into recall"}[to],
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			var changed []string
			if to == memory.StatusArchived {
				changed, err = eng.Invalidate(cmd.Context(), g.bank, args, reason)
			} else {
				changed, err = eng.Restore(cmd.Context(), g.bank, args)
			}
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewStatusChange(changed, to))
			}
			fmt.Fprintf(g.stdout, "%s %d of %d facts\n", map[memory.Status]string{memory.StatusArchived: "invalidated", memory.StatusActive: "restored"}[to], len(changed), len(args))
			return nil
		},
	}
	if to == memory.StatusArchived {
		cmd.Flags().StringVar(&reason, "reason", "", "why (checked, not stored yet)")
	}
	return cmd
}

// newAboutCmd is `mnemo about NAME`.
func newAboutCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "about NAME",
		Short: "Show what a bank knows about an entity: its facts and relations",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			a, err := eng.About(cmd.Context(), g.bank, args[0], limit)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewAbout(a))
			}
			e := a.Entity
			fmt.Fprintf(g.stdout, "%s (%s, %d mentions)", e.Name, e.Type, e.MentionCount)
			if len(e.Aliases) > 0 {
				fmt.Fprintf(g.stdout, " aka %s", strings.Join(e.Aliases, ", "))
			}
			fmt.Fprintln(g.stdout)
			for _, r := range a.Relations {
				state := "current"
				if !r.Current {
					state = "closed " + r.Relation.ValidTo.Format("2006-01-02")
				}
				fmt.Fprintf(g.stdout, "  %s %s %s (%s)\n", r.SubjectName, r.Relation.Predicate, r.ObjectName, state)
			}
			for _, f := range a.Facts {
				fmt.Fprintf(g.stdout, "  - %s\n", oneLine(f.Body()))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "facts to show (0: 20)")
	return cmd
}

// shortTermMark is " (short-term)" for a short-term fact, "" otherwise.
func shortTermMark(f *memory.Fact) string {
	if f.ShortTerm() {
		return " " + memory.ShortTermMark
	}
	return ""
}

package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newDirectivesCmd is `mnemo directives`: add, list, edit and remove the
// bank's directives.
func newDirectivesCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "directives",
		Aliases: []string{"directive"},
		Short:   "Must-follow rules for the agent (add, list, edit, rm)",
		Long: `Directives are rules the agent must follow ("never push to main on
Fridays", "answer in British English"). "mnemo context" always shows the
ones that apply to its --scope, and those without a scope everywhere.
They are kept apart from facts: consolidation, decay, archival and merges
never touch them, and recall returns them only when asked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return listDirectives(cmd, g) },
	}
	cmd.AddCommand(newDirectivesAddCmd(g), newDirectivesListCmd(g), newDirectivesEditCmd(g), newDirectivesRmCmd(g))
	return cmd
}

// directiveText is args[0], or stdin for "-".
func directiveText(g *globals, arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	b, err := io.ReadAll(io.LimitReader(g.stdin, 4*memory.MaxDirectiveChars+1))
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// printDirective prints one directive: JSON, or its id.
func printDirective(g *globals, d *memory.Directive) error {
	if g.json {
		return g.printJSON(wire.NewDirective(d))
	}
	_, err := fmt.Fprintln(g.stdout, d.ID)
	return err
}

// newDirectivesAddCmd is `mnemo directives add [--scope S] TEXT|-`.
func newDirectivesAddCmd(g *globals) *cobra.Command {
	var scopes []string
	cmd := &cobra.Command{
		Use:   "add TEXT|-",
		Short: "Add a directive (for --scope, or everywhere); prints its id",
		Example: `  mnemo directives add --bank work "Answer in British English."
  mnemo directives add --bank work --scope mnemo "Run go vet before every commit."`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := directiveText(g, args[0])
			if err != nil {
				return err
			}
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			d, err := eng.AddDirective(cmd.Context(), g.bank, text, scopes)
			if err != nil {
				return err
			}
			return printDirective(g, d)
		},
	}
	cmd.Flags().StringArrayVar(&scopes, "scope", nil, "a scope the directive applies to (repeat for several; none: everywhere)")
	return cmd
}

// newDirectivesListCmd is `mnemo directives list [--scope S]`.
func newDirectivesListCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the bank's directives, oldest first (with --scope: those that apply there)",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return listDirectives(cmd, g) },
	}
	cmd.Flags().StringArray("scope", nil, "list only the directives that apply to this scope (repeatable)")
	return cmd
}

// listDirectives prints the bank's directives, those that apply to the
// command's --scope flags if it has any set.
func listDirectives(cmd *cobra.Command, g *globals) error {
	eng, err := g.engineWith(cmd, oneShot)
	if err != nil {
		return err
	}
	var ds []*memory.Directive
	if f := cmd.Flags().Lookup("scope"); f != nil && f.Changed {
		scopes, _ := cmd.Flags().GetStringArray("scope")
		norm, err := memory.NormalizeScopes(scopes)
		if err != nil {
			return err
		}
		ds, err = eng.DirectivesFor(cmd.Context(), g.bank, norm)
		if err != nil {
			return err
		}
	} else if ds, err = eng.Directives(cmd.Context(), g.bank); err != nil {
		return err
	}
	if g.json {
		return g.printJSON(wire.NewDirectiveList(ds))
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPES\tTEXT")
	for _, d := range ds {
		scopes := "(everywhere)"
		if len(d.Scopes) > 0 {
			scopes = strings.Join(d.Scopes, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.ID, scopes, strings.Join(strings.Fields(d.Text), " "))
	}
	return tw.Flush()
}

// newDirectivesEditCmd is `mnemo directives edit ID [TEXT|-] [--scope S
// | --everywhere]`.
func newDirectivesEditCmd(g *globals) *cobra.Command {
	var scopes []string
	var everywhere bool
	cmd := &cobra.Command{
		Use:   "edit ID [TEXT|-]",
		Short: "Change a directive's text and/or its scopes",
		Long: `Change a directive: TEXT (or stdin with -) replaces its text; --scope
replaces its scopes (repeat for several), --everywhere removes them.`,
		Example: `  mnemo directives edit dir_1a2b "Never push to main."
  mnemo directives edit dir_1a2b --scope web --scope ops`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var edit mnemo.DirectiveEdit
			if len(args) == 2 {
				text, err := directiveText(g, args[1])
				if err != nil {
					return err
				}
				edit.Text = &text
			}
			switch {
			case everywhere && cmd.Flags().Changed("scope"):
				return usagef("give --scope or --everywhere, not both")
			case everywhere:
				edit.Scopes = &[]string{}
			case cmd.Flags().Changed("scope"):
				edit.Scopes = &scopes
			}
			if edit.Text == nil && edit.Scopes == nil {
				return usagef("nothing to change: give a TEXT, --scope or --everywhere")
			}
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			d, err := eng.EditDirective(cmd.Context(), g.bank, args[0], edit)
			if err != nil {
				return err
			}
			return printDirective(g, d)
		},
	}
	cmd.Flags().StringArrayVar(&scopes, "scope", nil, "the directive's new scopes (repeatable)")
	cmd.Flags().BoolVar(&everywhere, "everywhere", false, "remove the directive's scopes: it applies everywhere")
	return cmd
}

// newDirectivesRmCmd is `mnemo directives rm ID`.
func newDirectivesRmCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "rm ID",
		Aliases: []string{"remove", "delete"},
		Short:   "Remove a directive",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			if err := eng.DeleteDirective(cmd.Context(), g.bank, args[0]); err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.Deleted{Deleted: args[0]})
			}
			return nil
		},
	}
}

package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// newBlocksCmd is `mnemo blocks`: list, show, write and delete the
// bank's memory blocks.
func newBlocksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blocks",
		Short: "List the bank's memory blocks (persona, user_profile, … and your own)",
		Long: `List the bank's memory blocks: named texts an agent keeps in its working
memory and rewrites as it goes. Every bank has the default blocks persona,
user_profile, working_context, operational_findings and contacts_summary
(empty until written); "mnemo blocks write" creates others.

Each block has a limit in characters: a write that would pass it fails and
changes nothing. Listing counts no reads; "mnemo blocks show" does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			bs, err := eng.Blocks(cmd.Context(), g.bank)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewBlockList(bs))
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tCHARS\tREADS\tWRITES\tUPDATED\tLABEL")
			for _, b := range bs {
				updated := "never"
				if !b.UpdatedAt.IsZero() {
					updated = b.UpdatedAt.Local().Format(time.DateTime)
				}
				fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%s\t%s\n", b.Name, b.Chars(), b.MaxChars, b.Reads, b.Writes, updated, b.Label)
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(newBlocksShowCmd(g), newBlocksWriteCmd(g), newBlocksDeleteCmd(g))
	return cmd
}

// newBlocksShowCmd is `mnemo blocks show NAME`.
func newBlocksShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Print one memory block's text (and count the read)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			b, err := eng.Block(cmd.Context(), g.bank, args[0])
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewBlock(b))
			}
			if b.Value == "" || strings.HasSuffix(b.Value, "\n") {
				_, err = io.WriteString(g.stdout, b.Value)
			} else {
				_, err = fmt.Fprintln(g.stdout, b.Value)
			}
			return err
		},
	}
}

// newBlocksWriteCmd is `mnemo blocks write NAME TEXT|-`.
func newBlocksWriteCmd(g *globals) *cobra.Command {
	var opts mnemo.BlockOptions
	var appendText bool
	var replace string
	cmd := &cobra.Command{
		Use:   "write NAME TEXT|-",
		Short: "Replace a memory block's text, append to it, or replace a part of it",
		Long: `Write a memory block (created if it does not exist) with TEXT, or stdin
with -. By default TEXT replaces the whole block; --append adds it on a new
line; --replace OLD replaces OLD, which must occur exactly once in the
block, with TEXT.

A write that would take the block past its limit fails and changes
nothing; --max-chars sets the limit first (a new block's default is 2000
characters).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if appendText && cmd.Flags().Changed("replace") {
				return usagef("give --append or --replace, not both")
			}
			switch {
			case appendText:
				opts.Mode = memory.BlockAppend
			case cmd.Flags().Changed("replace"):
				opts.Mode, opts.Old = memory.BlockReplace, replace
			default:
				opts.Mode = memory.BlockWrite
			}
			text := args[1]
			if text == "-" {
				b, err := io.ReadAll(io.LimitReader(g.stdin, 4*memory.MaxBlockChars+1))
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				if len(b) > 4*memory.MaxBlockChars {
					return memory.Errorf(memory.EINVALID, "input is larger than any block can hold (%d characters)", memory.MaxBlockChars)
				}
				// A piped text's final newline is the pipe's, not the text's.
				text = strings.TrimSuffix(string(b), "\n")
			}
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			b, err := eng.WriteBlock(cmd.Context(), g.bank, args[0], text, opts)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewBlock(b))
			}
			fmt.Fprintf(g.stdout, "block %s: %d of %d characters\n", b.Name, b.Chars(), b.MaxChars)
			return nil
		},
	}
	cmd.Flags().BoolVar(&appendText, "append", false, "add TEXT at the end of the block, on a new line")
	cmd.Flags().StringVar(&replace, "replace", "", "replace `OLD` (which must occur exactly once) with TEXT")
	cmd.Flags().IntVar(&opts.MaxChars, "max-chars", 0, "set the block's limit in characters `N` (0: keep it)")
	cmd.Flags().StringVar(&opts.Label, "label", "", "set what the block is for")
	return cmd
}

// newBlocksDeleteCmd is `mnemo blocks delete NAME`.
func newBlocksDeleteCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a memory block (a default block is emptied instead)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			if err := eng.DeleteBlock(cmd.Context(), g.bank, args[0]); err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.Deleted{Deleted: args[0]})
			}
			fmt.Fprintf(g.stdout, "deleted block %s\n", args[0])
			return nil
		},
	}
}

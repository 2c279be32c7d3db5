package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/spf13/cobra"
)

func newRetainCmd(g *globals) *cobra.Command {
	var speaker, at, source, item string
	var tags []string
	cmd := &cobra.Command{
		Use:   "retain [TEXT | -]",
		Short: "Remember a piece of text (from the argument, or stdin with -)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := readText(g.stdin, args)
			if err != nil {
				return err
			}
			req := memory.RetainRequest{BankID: g.bank, Text: text, Speaker: speaker, Source: source, ItemID: item, Tags: tags}
			if at != "" {
				t, err := importer.ParseTime(at)
				if err != nil {
					return err
				}
				req.At = t
			}
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			res, err := eng.Retain(cmd.Context(), req)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(res)
			}
			if res.Duplicate {
				fmt.Fprintf(g.stdout, "already remembered (document %s): nothing to do\n", res.DocumentID)
				return nil
			}
			fmt.Fprintf(g.stdout, "remembered %d facts, %d entities (document %s)\n", res.Facts, res.Entities, res.DocumentID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&speaker, "speaker", "", "who said it")
	f.StringVar(&at, "at", "", "when it was said (RFC 3339 or YYYY-MM-DD[ HH:MM]); default now")
	f.StringVar(&source, "source", "", "source channel (chat, note, email, …); default api")
	f.StringVar(&item, "id", "", "external item id; default the content hash")
	f.StringSliceVar(&tags, "tags", nil, "comma-separated tags")
	return cmd
}

// readText returns the text argument, or stdin when it is "-" or absent.
func readText(stdin io.Reader, args []string) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, memory.MaxContentBytes+1))
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if len(b) > memory.MaxContentBytes {
		return "", memory.Errorf(memory.EINVALID, "input is larger than %d bytes: split it into smaller items", memory.MaxContentBytes)
	}
	if strings.TrimSpace(string(b)) == "" && len(args) == 0 {
		return "", usagef("nothing to remember: give TEXT or pipe it with -")
	}
	return string(b), nil
}

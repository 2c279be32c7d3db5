package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newKeysCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, list and revoke API keys",
		Long: "API keys let HTTP and MCP clients in. A key is for one bank (--bank) or every bank (--bank '*'),\n" +
			"with a scope: read, write (read and change a bank) or admin (also create and delete banks).\n" +
			"The key is shown once, when it is created: only its hash is stored.",
	}
	var scope, name, expires string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a key for --bank (or '*' for every bank) and print it once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if scope == "" {
				return usagef("keys create: --scope is required (read, write or admin)")
			}
			sc, err := memory.ParseScope(scope)
			if err != nil {
				return err
			}
			req := mnemo.KeyRequest{Bank: g.bank, Scope: sc, Name: name}
			if expires != "" {
				d, err := parseExpiry(expires)
				if err != nil {
					return err
				}
				req.ExpiresAt = time.Now().Add(d)
			}
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			secret, k, err := eng.CreateKey(cmd.Context(), req)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewCreatedKey(secret, k))
			}
			fmt.Fprintln(g.stdout, secret)
			fmt.Fprintf(g.stderr, "created key %s for %s, scope %s; the key above is shown only this once\n", k.ID, keyBank(k.Bank), k.Scope)
			return nil
		},
	}
	create.Flags().StringVar(&scope, "scope", "", "what the key may do: read, write or admin (required)")
	create.Flags().StringVar(&name, "name", "", "a label for the key")
	create.Flags().StringVar(&expires, "expires", "", "lifetime of the key, e.g. 720h or 30d (default: no expiry)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List keys (all, or those for --bank), revoked ones included",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bank := ""
			if g.root.PersistentFlags().Changed("bank") {
				bank = g.bank
			}
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			ks, err := eng.Keys(cmd.Context(), bank)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewKeyList(ks))
			}
			now := time.Now()
			for _, k := range ks {
				fmt.Fprintf(g.stdout, "%s\t%s\t%s\t%s\t%s\n", k.ID, keyBank(k.Bank), k.Scope, keyState(k, now), k.Name)
			}
			return nil
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key: it lets nothing in from now on",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			k, err := eng.RevokeKey(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewKey(k))
			}
			fmt.Fprintf(g.stdout, "revoked key %s\n", k.ID)
			return nil
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// parseExpiry reads a key lifetime: a Go duration (720h, 90m) or a
// number of days (30d). It must be positive.
func parseExpiry(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		days, err = strconv.Atoi(n)
		if days > 100*365 {
			return 0, memory.Errorf(memory.EINVALID, "--expires %q: at most 36500 days", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, memory.Errorf(memory.EINVALID, "--expires %q: want a positive duration such as 720h or 30d", s)
	}
	return d, nil
}

// keyBank is how a key's bank reads in text output.
func keyBank(bank string) string {
	if bank == memory.AllBanks {
		return "every bank"
	}
	return "bank " + bank
}

// keyState says whether a key works at now: active, expired or revoked.
func keyState(k *memory.Key, now time.Time) string {
	switch {
	case !k.RevokedAt.IsZero():
		return "revoked " + k.RevokedAt.Format(time.RFC3339)
	case !k.ExpiresAt.IsZero() && !k.ExpiresAt.After(now):
		return "expired " + k.ExpiresAt.Format(time.RFC3339)
	case !k.ExpiresAt.IsZero():
		return "active until " + k.ExpiresAt.Format(time.RFC3339)
	}
	return "active"
}

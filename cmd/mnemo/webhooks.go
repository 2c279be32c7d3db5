package main

import (
	"fmt"
	"strings"

	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newWebhooksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhooks",
		Short: "Subscribe URLs to a bank's events (retain.done, consolidation.done, forget.done)",
		Long: "A webhook receives a signed POST for each event of --bank it subscribed to:\n" +
			"retain.done, consolidation.done, forget.done. Deliveries are queued jobs, sent by\n" +
			"`mnemo serve` (or `mnemo jobs run`) and retried with backoff; `webhooks log` shows them.\n" +
			"Each POST carries X-Mnemo-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\"> under the webhook's secret.",
	}
	var events []string
	add := &cobra.Command{
		Use:   "add URL",
		Short: "Subscribe URL to --bank's events (all, or those given with --event) and print its secret",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			w, err := eng.CreateWebhook(cmd.Context(), g.bank, args[0], events)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewWebhook(w))
			}
			fmt.Fprintln(g.stdout, w.Secret)
			fmt.Fprintf(g.stderr, "created webhook %s for %s (%s); the secret above signs its deliveries\n", w.ID, w.URL, strings.Join(w.Events, ", "))
			return nil
		},
	}
	add.Flags().StringSliceVar(&events, "event", nil, "an event to deliver (repeat or comma-separate); default all")
	list := &cobra.Command{
		Use:   "list",
		Short: "List --bank's webhooks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			ws, err := eng.Webhooks(cmd.Context(), g.bank)
			if err != nil {
				return err
			}
			if g.json {
				out := wire.WebhookList{Webhooks: []wire.Webhook{}}
				for _, w := range ws {
					out.Webhooks = append(out.Webhooks, wire.NewWebhook(w))
				}
				return g.printJSON(out)
			}
			if len(ws) == 0 {
				fmt.Fprintln(g.stderr, "no webhooks; add one with: mnemo webhooks add URL")
			}
			for _, w := range ws {
				fmt.Fprintf(g.stdout, "%s  %s  %s\n", w.ID, w.URL, strings.Join(w.Events, ","))
			}
			return nil
		},
	}
	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Remove a webhook of --bank (its queued deliveries are dropped)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			if err := eng.DeleteWebhook(cmd.Context(), g.bank, args[0]); err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.Deleted{Deleted: args[0]})
			}
			fmt.Fprintf(g.stderr, "removed webhook %s\n", args[0])
			return nil
		},
	}
	var limit int
	log := &cobra.Command{
		Use:   "log",
		Short: "Show --bank's webhook deliveries, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			jobs, err := eng.WebhookDeliveries(cmd.Context(), g.bank, limit)
			if err != nil {
				return err
			}
			out := wire.JobList{Jobs: make([]wire.Job, 0, len(jobs))}
			for _, j := range jobs {
				out.Jobs = append(out.Jobs, wire.NewJob(j))
			}
			if g.json {
				return g.printJSON(out)
			}
			if len(jobs) == 0 {
				fmt.Fprintln(g.stderr, "no deliveries yet")
			}
			for _, j := range out.Jobs {
				line := fmt.Sprintf("%s  %s  %-7s attempts=%d", j.CreatedAt.Format("2006-01-02 15:04:05"), j.ID, j.Status, j.Attempts)
				if j.Error != "" {
					line += "  " + j.Error
				}
				fmt.Fprintln(g.stdout, line)
			}
			return nil
		},
	}
	log.Flags().IntVar(&limit, "limit", 50, "at most this many deliveries")
	cmd.AddCommand(add, list, rm, log)
	return cmd
}

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newJobsCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List the bank's queued work (retain --async), newest first",
		Long: `List the bank's jobs, newest first: queued, running, done or failed.

A job is queued by "mnemo retain --async" and run by a background worker
(of "mnemo serve" or "mnemo import --watch") or by "mnemo jobs run".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			js, err := eng.Jobs(cmd.Context(), g.bank, limit)
			if err != nil {
				return err
			}
			if g.json {
				out := wire.JobList{Jobs: make([]wire.Job, len(js))} // an object, as bank list --json
				for i, j := range js {
					out.Jobs[i] = wire.NewJob(j)
				}
				return g.printJSON(out)
			}
			if len(js) == 0 {
				fmt.Fprintf(g.stdout, "no jobs in bank %s\n", g.bank)
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tATTEMPTS\tCREATED\tOUTCOME")
			for _, j := range js {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", j.ID, j.Status, j.Attempts, j.CreatedAt.Local().Format(time.DateTime), jobOutcome(j))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "how many jobs to list (0: all)")
	cmd.AddCommand(newJobsShowCmd(g), newJobsRunCmd(g))
	return cmd
}

// jobOutcome says in a few words how a job went.
func jobOutcome(j *memory.Job) string {
	switch j.Status {
	case memory.JobDone:
		var res memory.RetainResult
		if j.Kind == memory.JobRetain && json.Unmarshal(j.Result, &res) == nil {
			if res.Duplicate {
				return "already remembered"
			}
			return fmt.Sprintf("%d facts, %d entities (document %s)", res.Facts, res.Entities, res.DocumentID)
		}
		return "done"
	case memory.JobQueued:
		if j.Error != "" {
			return "will retry: " + oneLine(j.Error)
		}
	case memory.JobFailed:
		return oneLine(j.Error)
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func newJobsShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show one job: its status and, once done, its result",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, oneShot)
			if err != nil {
				return err
			}
			j, err := eng.Job(cmd.Context(), g.bank, args[0])
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewJob(j))
			}
			fmt.Fprintf(g.stdout, "%s: %s after %d attempts", j.ID, j.Status, j.Attempts)
			if o := jobOutcome(j); o != "" {
				fmt.Fprintf(g.stdout, ": %s", o)
			}
			fmt.Fprintln(g.stdout)
			return nil
		},
	}
}

func newJobsRunCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Run the queued jobs of every bank now, and extract idle sessions",
		Long: `Run every due job of every bank, one after the other, then extract the
streaming sessions that have been idle for 5 minutes. Jobs waiting to retry
after a temporary failure are left for a later run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := g.engineWith(cmd, mnemo.Config{JobPoll: -1})
			if err != nil {
				return err
			}
			ran, err := eng.RunJobs(cmd.Context())
			if err != nil {
				return err
			}
			flushed, err := eng.FlushIdleSessions(cmd.Context())
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.JobsRun{Jobs: ran, Sessions: flushed})
			}
			fmt.Fprintf(g.stdout, "ran %d jobs; extracted %d idle sessions\n", ran, flushed)
			return nil
		},
	}
}

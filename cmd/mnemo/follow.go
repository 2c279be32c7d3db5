package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

// watch follows the folder dir (import --watch) until the command's
// context ends: SIGINT or SIGTERM is a clean stop.
func (g *globals) watch(cmd *cobra.Command, dir string, poll time.Duration) error {
	if poll <= 0 {
		return usagef("--poll must be positive")
	}
	// A watch runs until stopped: the engine's background work (queued
	// jobs, idle sessions) runs in it too.
	eng, err := g.engineWith(cmd, mnemo.Config{WarmRecall: true})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(g.stdout)
	opts := mnemo.FollowOptions{Bank: g.bank, Dir: dir, Poll: poll, OnLine: func(ev mnemo.FollowEvent) {
		if g.json {
			enc.Encode(wire.NewFollowLine(ev.File, ev.Offset, ev.Result, ev.Err))
			return
		}
		switch {
		case ev.Err != nil:
			fmt.Fprintf(g.stderr, "%s@%d: skipped: %s\n", ev.File, ev.Offset, memory.ErrorMessage(ev.Err))
		case ev.Result.Duplicate:
			fmt.Fprintf(g.stdout, "%s@%d: already remembered\n", ev.File, ev.Offset)
		default:
			fmt.Fprintf(g.stdout, "%s@%d: remembered %d facts, %d entities\n", ev.File, ev.Offset, ev.Result.Facts, ev.Result.Entities)
		}
	}}
	// One pass first: it checks the folder and the bank, and takes in what
	// is already there, before the banner.
	opts.Poll = -1
	if err := eng.Follow(cmd.Context(), opts); err != nil {
		return err
	}
	if !g.json {
		fmt.Fprintf(g.stderr, "watching %s for new lines (bank %s); stop with Ctrl-C\n", dir, g.bank)
	}
	opts.Poll = poll
	return eng.Follow(cmd.Context(), opts)
}

package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progress returns a progress callback drawing a bar on w when w is a
// terminal and --json is off, and a no-op otherwise.
func (g *globals) progress(w io.Writer, what string) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok || g.json || !isatty.IsTerminal(f.Fd()) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100e6))
		}
		bar.Set(done)
		if done == total {
			bar.Finish()
		}
	}
}

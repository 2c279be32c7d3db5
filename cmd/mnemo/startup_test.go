package main

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// BenchmarkStartup runs the mnemo binary as a whole process, as hooks
// call it: --help (start-up alone), recall on a small bank, and on a
// 10k-fact bank the session context without and with a query and a
// recall. Targets (issue 13): --help ≤ 20 ms, recall ≤ 40 ms; (issue 18)
// context --query on 10k facts ≤ 40 ms and ≤ 50 MB. ns/op is the wall
// time of one process, p50-ms the median of them, and rss-KiB the median
// of the processes' peak resident sets (ru_maxrss). Each case runs once
// untimed first, as the process before a hook's would have: that run
// writes the bank's index file (beside the database) which the timed
// ones read; the NoIndexFile cases remove it before each process, the
// first recall after the file was lost. $MNEMO_STARTUP_BIN names another
// binary to measure (an older build, for a before-and-after).
//
//	go test ./cmd/mnemo -run '^$' -bench Startup -benchtime 9x
func BenchmarkStartup(b *testing.B) {
	bin := mnemoBin
	if v := os.Getenv("MNEMO_STARTUP_BIN"); v != "" {
		bin = v
	}
	if bin == "" {
		b.Skip("the go command is not on PATH: no mnemo binary")
	}
	db := filepath.Join(b.TempDir(), "small.db")
	for i, s := range unrelated {
		if out, err := exec.Command(bin, "--db", db, "retain", "--at", "2024-03-04", s).CombinedOutput(); err != nil {
			b.Fatalf("retain %d: %v\n%s", i, err, out)
		}
	}
	big := bigBank(b, cmp.Or(mnemoBin, bin)) // startup_context_test.go: made by this build (directives)
	bigDB := []string{"--db", big, "--bank", "synthetic"}
	for _, bb := range []struct {
		name   string
		args   []string
		noFile bool // remove the index files before each process
	}{
		{"Help", []string{"--help"}, false},
		{"Recall", []string{"--db", db, "recall", "who adopted a dog?"}, false},
		{"Context10k", append(bigDB, "context", "--scope", "project"), false},
		{"ContextQuery10k", append(bigDB, "context", "--scope", "project", "--query", "who adopted a dog?"), false},
		{"Recall10k", append(bigDB, "recall", "who adopted a dog?"), false},
		{"ContextQuery10kNoIndexFile", append(bigDB, "context", "--scope", "project", "--query", "who adopted a dog?"), true},
		{"Recall10kNoIndexFile", append(bigDB, "recall", "who adopted a dog?"), true},
	} {
		b.Run(bb.name, func(b *testing.B) {
			// run runs one process and returns it and its wall time.
			run := func() (*exec.Cmd, time.Duration) {
				if bb.noFile {
					b.StopTimer()
					if err := os.RemoveAll(sqlite.IndexDir(big)); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				cmd := exec.Command(bin, bb.args...)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				took := time.Since(start)
				if err != nil {
					b.Fatalf("mnemo %v: %v\n%s", bb.args, err, out)
				}
				return cmd, took
			}
			run()
			var rss []int64
			var wall []time.Duration
			for b.Loop() {
				cmd, took := run()
				wall = append(wall, took)
				rss = append(rss, maxRSS(cmd))
			}
			slices.Sort(rss)
			slices.Sort(wall)
			b.ReportMetric(float64(rss[len(rss)/2]), "rss-KiB")
			b.ReportMetric(float64(wall[len(wall)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

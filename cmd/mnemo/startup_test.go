package main

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkStartup runs the mnemo binary as a whole process, as hooks
// call it: --help (start-up alone) and recall on a small bank. Targets
// (issue 13): --help ≤ 20 ms, recall ≤ 40 ms; ns/op is the wall time of
// one process, and rss-KiB the median of the processes' peak resident
// sets (ru_maxrss). $MNEMO_STARTUP_BIN names another binary to measure
// (an older build, for a before-and-after).
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
	for _, bb := range []struct {
		name string
		args []string
	}{
		{"Help", []string{"--help"}},
		{"Recall", []string{"--db", db, "recall", "who adopted a dog?"}},
		{"Context10k", []string{"--db", big, "--bank", "synthetic", "context", "--scope", "project"}},
		{"ContextQuery10k", []string{"--db", big, "--bank", "synthetic", "context", "--scope", "project", "--query", "who adopted a dog?"}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			var rss []int64
			for b.Loop() {
				cmd := exec.Command(bin, bb.args...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("mnemo %v: %v\n%s", bb.args, err, out)
				}
				rss = append(rss, maxRSS(cmd))
			}
			slices.Sort(rss)
			b.ReportMetric(float64(rss[len(rss)/2]), "rss-KiB")
		})
	}
}

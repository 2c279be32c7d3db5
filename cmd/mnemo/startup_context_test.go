package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// bigBankFacts is the size of BenchmarkStartup's large bank: the
// context's cold-process target (issue 18: ≤ 40 ms, ≤ 50 MB) is set on
// a 10k-fact bank.
const bigBankFacts = 10000

var keptAt = regexp.MustCompile(`benchmark database kept at (\S+)`)

// bigBank makes a bank of bigBankFacts generated facts with bin (`mnemo
// bench synthetic`, bank "synthetic"), then gives it what a session's
// context shows: the five default blocks written and 20 directives, half
// of them scoped. It returns the database's path.
func bigBank(b *testing.B, bin string) string {
	b.Helper()
	out, err := exec.Command(bin, "bench", "synthetic", "--facts", fmt.Sprint(bigBankFacts), "--queries", "1", "--keep").CombinedOutput()
	if err != nil {
		b.Fatalf("bench synthetic: %v\n%s", err, out)
	}
	m := keptAt.FindSubmatch(out)
	if m == nil {
		b.Fatalf("bench synthetic did not say where it kept its database:\n%s", out)
	}
	db := string(m[1])
	b.Cleanup(func() { os.RemoveAll(filepath.Dir(db)) })
	for _, name := range []string{"persona", "user_profile", "working_context", "operational_findings", "contacts_summary"} {
		text := fmt.Sprintf("The %s of the synthetic user: a few lines an agent keeps current, about two hundred characters long, with names, places and the state of the work at hand.", name)
		if out, err := exec.Command(bin, "--db", db, "--bank", "synthetic", "blocks", "write", name, text).CombinedOutput(); err != nil {
			b.Fatalf("blocks write: %v\n%s", err, out)
		}
	}
	for i := range 20 {
		args := []string{"--db", db, "--bank", "synthetic", "directives", "add"}
		if i%2 == 1 {
			args = append(args, "--scope", "project")
		}
		args = append(args, fmt.Sprintf("Directive %d: always run the tests before a commit and answer in British English.", i))
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			b.Fatalf("directives add: %v\n%s", err, out)
		}
	}
	return db
}

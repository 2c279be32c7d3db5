package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// Durability: what mnemo reports is what is stored, under kill -9, a
// held write lock, concurrent writer processes, a full disk and a
// read-only file. Each test runs the built binary (binary(t)).

// chatFile writes a JSONL chat of sessions sessions (3 messages each,
// session ids prefixed by tag) and returns its path.
func chatFile(t *testing.T, dir, tag string, sessions int) string {
	t.Helper()
	var b strings.Builder
	for s := 0; s < sessions; s++ {
		for m := 0; m < 3; m++ {
			fmt.Fprintf(&b, `{"session": "%s-s%d", "time": "2024-03-%02dT10:%02d:00Z", "speaker": "P%d", "text": "Session %s %d message %d: Mira met Theo at the harbour and talked about boats number %d."}`+"\n",
				tag, s, s%28+1, m, m%2, tag, s, m, s*m)
		}
	}
	path := filepath.Join(dir, tag+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stats runs mnemo stats --json on bank and returns the result and the
// documents and facts it counts (-1 when it failed).
func bankCounts(t *testing.T, db, bank string) (result, int, int) {
	t.Helper()
	r := exe(t, db, "--bank", bank, "--json", "stats")
	if r.code != 0 {
		return r, -1, -1
	}
	var docs, facts int
	// {"documents":N,…,"facts":N,…}
	for _, f := range []struct {
		key string
		n   *int
	}{{`"documents":`, &docs}, {`"facts":`, &facts}} {
		i := strings.Index(r.stdout, f.key)
		if i < 0 {
			t.Fatalf("stats --json: no %s in %s", f.key, r.stdout)
		}
		fmt.Sscan(r.stdout[i+len(f.key):], f.n)
	}
	return r, docs, facts
}

// An export restored into a new bank (mnemo import exp.jsonl --bank copy)
// and killed at random moments never leaves a bank that looks whole but
// is not: after each kill, copy is absent, refused as incomplete (exit
// 5), or whole; and a re-run then restores it whole (before, it was
// refused: "bank already exists").
func TestImportExport_KilledMidRestore(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	if r := exe(t, src, "import", chatFile(t, dir, "k", 400)); r.code != 0 {
		t.Fatalf("import: %v", r)
	}
	exp := filepath.Join(dir, "exp.jsonl")
	if r := exe(t, src, "export", "--out", exp); r.code != 0 {
		t.Fatalf("export: %v", r)
	}
	restore := func(db string) *exec.Cmd { return exec.Command(bin, "--db", db, "--bank", "copy", "import", exp) }
	ref := filepath.Join(dir, "ref.db")
	start := time.Now()
	if out, err := restore(ref).CombinedOutput(); err != nil {
		t.Fatalf("reference restore: %v\n%s", err, out)
	}
	full := time.Since(start)
	_, wantDocs, wantFacts := bankCounts(t, ref, "copy")
	if wantDocs != 400 {
		t.Fatalf("reference restore: %d documents, want 400", wantDocs)
	}
	const trials = 8
	rng := rand.New(rand.NewPCG(13, uint64(time.Now().UnixNano())))
	outcome := map[string]int{}
	for trial := 0; trial < trials; trial++ {
		db := filepath.Join(dir, fmt.Sprintf("kill-%d.db", trial))
		// Every database holds another bank, so the file exists whatever
		// moment the kill falls on.
		if r := exe(t, db, "bank", "create", "other"); r.code != 0 {
			t.Fatalf("bank create: %v", r)
		}
		cmd := restore(db)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration((0.1 + 0.8*rng.Float64()) * float64(full))
		time.Sleep(delay)
		cmd.Process.Kill()
		cmd.Wait()
		r, docs, facts := bankCounts(t, db, "copy")
		switch {
		case r.code == 3:
			outcome["no bank"]++
		case r.code == 5 && strings.Contains(r.stderr, "incomplete"):
			outcome["refused as incomplete"]++
			if l := exe(t, db, "bank", "list"); !strings.Contains(l.stdout, "copy (incomplete") {
				t.Errorf("trial %d: bank list does not mark the incomplete bank: %v", trial, l)
			}
		case r.code == 0 && docs == wantDocs && facts == wantFacts:
			outcome["whole"]++
		default:
			t.Errorf("trial %d (killed after %v): stats of the restored bank: %v (%d documents, %d facts; whole: %d, %d)", trial, delay, r, docs, facts, wantDocs, wantFacts)
			continue
		}
		// Whatever the kill left, running the restore again ends whole
		// (or says the bank exists, when it was whole already).
		again := exe(t, db, "--bank", "copy", "import", exp)
		if again.code != 0 && !(again.code == 4 && r.code == 0) {
			t.Errorf("trial %d: the restore run again: %v", trial, again)
			continue
		}
		if _, docs, facts := bankCounts(t, db, "copy"); docs != wantDocs || facts != wantFacts {
			t.Errorf("trial %d: after the second restore: %d documents, %d facts, want %d, %d", trial, docs, facts, wantDocs, wantFacts)
		}
		counts(t, context.Background(), db) // the file checks clean
	}
	t.Logf("%d kills over a %v restore: %v", trials, full.Round(time.Millisecond), outcome)
}

// A cut or extended export is refused and leaves no bank; v1 files, which
// have no trailer, still import (TestImport_ExportV1).
func TestImportExport_Truncated(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	if r := exe(t, src, "import", chatFile(t, dir, "t", 40)); r.code != 0 {
		t.Fatalf("import: %v", r)
	}
	exp := filepath.Join(dir, "exp.jsonl")
	if r := exe(t, src, "export", "--out", exp); r.code != 0 {
		t.Fatalf("export: %v", r)
	}
	data, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	cases := map[string]string{
		"head -n half":    strings.Join(lines[:len(lines)/2], ""),
		"no trailer":      strings.Join(lines[:len(lines)-1], ""),
		"a line dropped":  strings.Join(append(append([]string{}, lines[:len(lines)-3]...), lines[len(lines)-2:]...), ""),
		"after the trail": string(data) + lines[3],
		"cut mid-line":    string(data[:len(data)-len(lines[len(lines)-1])-20]),
	}
	for name, body := range cases {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".jsonl")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".db")
		r := exe(t, db, "--bank", "copy", "import", file)
		if r.code != 2 {
			t.Errorf("%s: import: %v, want exit 2", name, r)
		}
		if r, _, _ := bankCounts(t, db, "copy"); r.code != 3 {
			t.Errorf("%s: the refused import left bank copy: %v", name, r)
		}
	}
	db := filepath.Join(dir, "whole.db")
	if r := exe(t, db, "--bank", "copy", "import", exp); r.code != 0 {
		t.Fatalf("the whole export: %v", r)
	}
	if _, docs, _ := bankCounts(t, db, "copy"); docs != 40 {
		t.Errorf("the whole export: %d documents, want 40", docs)
	}
}

// holdWriteLock takes db's write lock (BEGIN IMMEDIATE) in this process
// and returns a function that releases it.
func holdWriteLock(t *testing.T, db string) func() {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetMaxOpenConns(1)
	if _, err := conn.Exec("BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			conn.Exec("ROLLBACK")
			conn.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// recall succeeds under a writer holding the lock: recording the access
// is best effort (before, recall printed its answer and exited 1).
func TestRecall_WriteLockHeld(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	if r := exe(t, db, "import", chatFile(t, dir, "r", 20)); r.code != 0 {
		t.Fatalf("import: %v", r)
	}
	release := holdWriteLock(t, db)
	r := exe(t, db, "recall", "harbour boats")
	release()
	if r.code != 0 || !strings.Contains(r.stdout, "harbour") {
		t.Fatalf("recall under a held write lock: %v", r)
	}
	for _, args := range [][]string{{"stats"}, {"export"}} {
		release := holdWriteLock(t, db)
		r := exe(t, db, args...)
		release()
		if r.code != 0 {
			t.Errorf("%s under a held write lock: %v", args[0], r)
		}
	}
}

// A writer waits for another process's write lock longer than SQLite's
// busy timeout (DefaultBusyTimeout, 10 s) and then lands: a held lock is
// normal use, not an error (before: "database is locked", exit 1).
func TestRetain_WaitsForWriteLock(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a lock for 11 s")
	}
	bin := binary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	if r := exe(t, db, "retain", "first"); r.code != 0 {
		t.Fatalf("retain: %v", r)
	}
	release := holdWriteLock(t, db)
	cmd := exec.Command(bin, "--db", db, "retain", "Mira waited for the lock.")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(sqlite.DefaultBusyTimeout + time.Second)
	release()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("retain after waiting for the lock: %v\n%s", err, out.String())
	}
	if _, docs, _ := bankCounts(t, db, "default"); docs != 2 {
		t.Errorf("%d documents, want 2", docs)
	}
}

// Two and four processes importing into one file at once: every item of
// each lands, none fails, nothing is an internal error.
func TestProcesses_ConcurrentImports(t *testing.T) {
	bin := binary(t)
	for _, n := range []int{2, 4} {
		dir := t.TempDir()
		db := filepath.Join(dir, "m.db")
		var files []string
		for k := 0; k < n; k++ {
			files = append(files, chatFile(t, dir, fmt.Sprintf("w%d", k), 300))
		}
		var wg sync.WaitGroup
		outs := make([]string, n)
		errs := make([]error, n)
		for k := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := exec.Command(bin, "--db", db, "import", files[k]).CombinedOutput()
				outs[k], errs[k] = string(out), err
			}()
		}
		wg.Wait()
		for k := range files {
			if errs[k] != nil || strings.Contains(outs[k], "internal error") {
				t.Errorf("%d writers: import %d: %v\n%s", n, k, errs[k], outs[k])
			}
		}
		if _, docs, facts := bankCounts(t, db, "default"); docs != 300*n || facts != 900*n {
			t.Errorf("%d writers: %d documents, %d facts, want %d, %d", n, docs, facts, 300*n, 900*n)
		}
	}
}

// limited runs mnemo on db under a file-size limit of kib KiB (ulimit -f,
// unprivileged): no file can grow past it, which is what a full disk
// does to SQLite (a write that extends the database, its WAL or its WAL
// index fails; writes inside a file's size go through).
func limited(t *testing.T, kib int, db string, args ...string) result {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh for ulimit")
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// sh's ulimit -f counts 512-byte blocks (POSIX) or KiB (bash, dash):
	// the tests only need "small".
	cmd := exec.Command(sh, "-c", fmt.Sprintf("ulimit -f %d && exec '%s' --db '%s' %s", kib, binary(t), db, strings.Join(q, " ")))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// On a full disk an import reports exactly the items the file then holds,
// and the database still opens for reading: stats, recall and export
// work though the WAL cannot grow (before: "enable WAL: disk I/O error").
func TestFullDisk_ReportedIsStored(t *testing.T) {
	binary(t)
	dir := t.TempDir()
	file := chatFile(t, dir, "f", 800)
	trials := 0
	// Too little room for the schema itself: a clear "disk full", exit 5.
	if r := limited(t, 64, filepath.Join(dir, "tiny.db"), "--json", "import", file); r.code != 5 || !strings.Contains(r.stdout+r.stderr, "disk full") || strings.Contains(r.stdout+r.stderr, "internal") {
		t.Errorf("64 KiB: import: %v, want exit 5 saying the disk is full", r)
	}
	// Room for the schema (its WAL takes about 1.6 MB) and some items.
	for _, kib := range []int{2500, 4000} {
		db := filepath.Join(dir, fmt.Sprintf("full-%d.db", kib))
		r := limited(t, kib, db, "--json", "import", file)
		if r.code != 6 && r.code != 0 {
			t.Errorf("%d KiB: import: %v, want exit 6 (some items failed)", kib, r)
			continue
		}
		var retained int
		if i := strings.Index(r.stdout, `"retained":`); i >= 0 {
			fmt.Sscan(r.stdout[i+len(`"retained":`):], &retained)
		}
		if _, docs, _ := bankCounts(t, db, "default"); docs != retained {
			t.Errorf("%d KiB: import reported %d items retained, the file holds %d", kib, retained, docs)
		}
		trials++
	}
	// A WAL grown by a killed import, then no space: reads still work.
	db := filepath.Join(dir, "wal.db")
	cmd := exec.Command(binary(t), "--db", db, "import", file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		time.Sleep(50 * time.Millisecond)
		if st, err := os.Stat(db + "-wal"); err == nil && st.Size() > 1<<20 {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	for _, args := range [][]string{{"stats"}, {"recall", "harbour"}, {"export"}} {
		if r := limited(t, 16, db, args...); r.code != 0 {
			t.Errorf("%s on a full disk: %v", args[0], r)
		}
	}
	if r := limited(t, 16, db, "retain", "more"); r.code == 0 || strings.Contains(r.stderr, "internal error") {
		t.Errorf("retain on a full disk: %v, want a clear error", r)
	}
	t.Logf("%d full-disk imports, 1 full disk after a grown WAL", trials)
}

// A read-only database (file 0400, directory 0500) answers stats, recall
// and export; a write fails with a clear error, not an internal one. As
// root, whom modes do not stop, the commands run as nobody.
func TestReadOnly_Reads(t *testing.T) {
	bin := binary(t)
	base := t.TempDir()
	dir := filepath.Join(base, "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "m.db")
	if r := exe(t, db, "import", chatFile(t, base, "ro", 20)); r.code != 0 {
		t.Fatalf("import: %v", r)
	}
	var cred *syscall.Credential
	run := func(args ...string) result {
		cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			cmd.Env = append(os.Environ(), "HOME="+base)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			code = -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
		}
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	if os.Geteuid() == 0 {
		// nobody must reach the binary and the file.
		const nobody = 65534
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
		for _, p := range []string{filepath.Dir(bin), bin, filepath.Dir(base), base} {
			os.Chmod(p, 0o755)
		}
		for _, p := range []string{dir, db} {
			if err := os.Chown(p, nobody, nobody); err != nil {
				t.Skipf("chown: %v", err)
			}
		}
	}
	if err := os.Chmod(db, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(db, 0o644) })
	if r := run("stats"); r.code != 0 || !strings.Contains(r.stdout, "documents") {
		t.Errorf("stats on a read-only database: %v", r)
	}
	if r := run("recall", "harbour boats"); r.code != 0 || !strings.Contains(r.stdout, "harbour") {
		t.Errorf("recall on a read-only database: %v", r)
	}
	if r := run("export"); r.code != 0 || !strings.Contains(r.stdout, `"trailer"`) {
		t.Errorf("export on a read-only database: %v", r)
	}
	if r := run("retain", "more"); r.code == 0 || strings.Contains(r.stderr, "internal error") {
		t.Errorf("retain on a read-only database: %v, want a clear error", r)
	}
}

// withRecords returns export (mnemo export's output) with the JSON lines
// recs added before its trailer, and the trailer counting them.
func withRecords(t *testing.T, export string, recs ...string) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(export, "\n"), "\n")
	lines = append(lines[:len(lines)-1], recs...) // drop the trailer
	tr := memory.ExportTrailer{Counts: map[string]int{}}
	for _, l := range lines[1:] {
		var r struct{ Kind string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		tr.Records++
		tr.Counts[r.Kind]++
	}
	b, err := json.Marshal(memory.ExportRecord{Kind: memory.RecordTrailer, Trailer: &tr})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(append(lines, string(b)), "\n") + "\n"
}

// tmpfsDir mounts a tmpfs of size (mount's syntax, e.g. "3m") on a new
// folder and returns it: a real full disk (ENOSPC) rather than a file-size
// limit. It skips where mounting is not allowed (not root, or no
// CAP_SYS_ADMIN in a container).
func tmpfsDir(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s): no real full disk here", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// On a real full disk (a small tmpfs, ENOSPC) an import reports exactly
// the items the file holds, whether the disk fills while the WAL grows
// or after a filler file took most of it; the database then still opens
// for reading where it lies.
func TestFullDisk_RealENOSPC(t *testing.T) {
	binary(t)
	src := t.TempDir()
	file := chatFile(t, src, "e", 800)
	trials := 0
	for _, tc := range []struct {
		size   string
		filler int64 // bytes written to the disk before the import
	}{{"2m", 0}, {"3m", 0}, {"6m", 4 << 20}} {
		dir := tmpfsDir(t, tc.size)
		if tc.filler > 0 {
			if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, tc.filler), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		db := filepath.Join(dir, "m.db")
		r := exe(t, db, "--json", "import", file)
		if r.code != 6 && r.code != 0 {
			t.Errorf("%s disk: import: %v, want exit 6 (some items failed)", tc.size, r)
			continue
		}
		if strings.Contains(r.stdout+r.stderr, "internal error") {
			t.Errorf("%s disk: import: %v, want no internal error", tc.size, r)
		}
		var retained int
		if i := strings.Index(r.stdout, `"retained":`); i >= 0 {
			fmt.Sscan(r.stdout[i+len(`"retained":`):], &retained)
		}
		if _, docs, _ := bankCounts(t, db, "default"); docs != retained {
			t.Errorf("%s disk: import reported %d items retained, the file holds %d", tc.size, retained, docs)
		}
		trials++
	}
	t.Logf("%d imports onto a full tmpfs", trials)
}

package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/hooks"
	"github.com/mnemo-ai/mnemo/memory"
)

const fixtures = "../testdata/hooks"

// project is a temporary repository with a transcript file, and an
// engine whose bank is the repository's.
type project struct {
	dir, transcript string
	eng             *mnemo.Engine
	bank            string
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "shop")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	eng, err := mnemo.Open(context.Background(), mnemo.Config{DB: filepath.Join(root, "m.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	p := &project{dir: dir, transcript: filepath.Join(root, "session.jsonl"), eng: eng, bank: hooks.ProjectBank(dir)}
	copyFile(t, filepath.Join(fixtures, "claude-code", "transcript.jsonl"), p.transcript)
	return p
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// payload is a fixture with the project's paths in it.
func (p *project) payload(t *testing.T, harness, event string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, harness, event+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return "{}" // an event or harness mnemo does not handle
	}
	if err != nil {
		t.Fatal(err)
	}
	esc := func(s string) string { j, _ := json.Marshal(s); return strings.Trim(string(j), `"`) }
	s := strings.ReplaceAll(string(b), "{{CWD}}", esc(p.dir))
	return strings.ReplaceAll(s, "{{TRANSCRIPT}}", esc(p.transcript))
}

// run runs one event against eng (p's engine unless given) and returns
// what it printed.
func (p *project) run(t *testing.T, harness, event string, mod func(*hooks.Options)) (string, error) {
	t.Helper()
	var out bytes.Buffer
	o := hooks.Options{Harness: harness, Event: event, PerProject: true, Stdin: strings.NewReader(p.payload(t, harness, event)), Stdout: &out,
		Getenv: func(string) string { return "" },
		Open: func(context.Context) (hooks.Engine, func() error, error) {
			return p.eng, func() error { return nil }, nil
		}}
	if mod != nil {
		mod(&o)
	}
	err := hooks.Run(context.Background(), o)
	return out.String(), err
}

func (p *project) facts(t *testing.T) int {
	t.Helper()
	st, err := p.eng.Stats(context.Background(), p.bank)
	if err != nil {
		t.Fatal(err)
	}
	return st.Facts
}

// additional decodes a hook's output: hookSpecificOutput with
// additionalContext (and hookEventName when the harness sends it).
func additional(t *testing.T, out string) (event, text string) {
	t.Helper()
	var v struct {
		HookSpecificOutput map[string]string `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("output is not the harness's JSON: %v\n%s", err, out)
	}
	for k := range v.HookSpecificOutput {
		if k != "hookEventName" && k != "additionalContext" {
			t.Errorf("unexpected key %q in hookSpecificOutput", k)
		}
	}
	return v.HookSpecificOutput["hookEventName"], v.HookSpecificOutput["additionalContext"]
}

// Every supported event of every harness, driven by its documented
// payload: the transcript events retain the session and print nothing;
// the session-start events print the context (with the project's
// directives); the prompt events print the memories relevant to the
// prompt, in the harness's output shape.
func TestRun_Events(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	// Claude Code's transcript events, in a session's order.
	for _, ev := range []string{"Stop", "PreCompact", "SessionEnd"} {
		out, err := p.run(t, "claude-code", ev, nil)
		if err != nil || out != "" {
			t.Fatalf("%s: output %q, err %v: want nothing", ev, out, err)
		}
	}
	if p.facts(t) == 0 {
		t.Fatal("the transcript events retained nothing")
	}
	if _, err := p.eng.AddDirective(ctx, p.bank, "Run the billing tests before a deploy.", []string{"shop"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.eng.AddDirective(ctx, p.bank, "Never touch the mobile app.", []string{"mobile"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		harness, event string
		named          bool // the output names its event
		want           []string
		not            []string
	}{
		{"claude-code", "SessionStart", true, []string{"Run the billing tests before a deploy."}, []string{"mobile app"}},
		{"claude-code", "UserPromptSubmit", true, []string{"PostgreSQL 16"}, []string{"Run the billing tests"}},
		{"gemini-cli", "SessionStart", false, []string{"Run the billing tests before a deploy."}, []string{"mobile app"}},
		{"gemini-cli", "BeforeAgent", false, []string{"PostgreSQL 16"}, nil},
		{"codex", "SessionStart", true, []string{"Run the billing tests before a deploy."}, []string{"mobile app"}},
		{"codex", "UserPromptSubmit", true, []string{"PostgreSQL 16"}, nil},
	} {
		out, err := p.run(t, c.harness, c.event, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", c.harness, c.event, err)
		}
		if !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
			t.Errorf("%s %s: want one JSON line, got %q", c.harness, c.event, out)
		}
		ev, text := additional(t, out)
		if c.named && ev != c.event || !c.named && ev != "" {
			t.Errorf("%s %s: hookEventName %q", c.harness, c.event, ev)
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %s: context lacks %q:\n%s", c.harness, c.event, w, text)
			}
		}
		for _, n := range c.not {
			if strings.Contains(text, n) {
				t.Errorf("%s %s: context has %q:\n%s", c.harness, c.event, n, text)
			}
		}
	}
	// A prompt nothing in memory bears on gets nothing.
	out, err := p.run(t, "claude-code", "UserPromptSubmit", func(o *hooks.Options) {
		o.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":` + quote(p.dir) + `,"prompt":"Write a haiku about autumn leaves."}`)
	})
	if err != nil || out != "" {
		t.Errorf("an unrelated prompt: output %q, err %v; want nothing", out, err)
	}
	// A new project (no bank yet) starts with nothing, quietly.
	out, err = p.run(t, "claude-code", "SessionStart", func(o *hooks.Options) {
		o.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"SessionStart","cwd":` + quote(t.TempDir()) + `}`)
	})
	if err != nil || out != "" {
		t.Errorf("a project without a bank: output %q, err %v; want nothing", out, err)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// A transcript retained twice adds nothing; a resumed session (the file
// grown) adds only what is new, and parses only messages (tool calls,
// tool results, thinking and meta lines are left out).
func TestRun_TranscriptIncremental(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	if _, err := p.run(t, "claude-code", "Stop", nil); err != nil {
		t.Fatal(err)
	}
	first := p.facts(t)
	docs := stat(t, p).Documents
	if first == 0 || docs != 2 {
		t.Fatalf("first retain: %d facts, %d documents; want a document per turn (2)", first, docs)
	}
	for _, ev := range []string{"Stop", "SessionEnd", "PreCompact"} {
		if _, err := p.run(t, "claude-code", ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got, d := p.facts(t), stat(t, p).Documents; got != first || d != docs {
		t.Fatalf("retained again: %d facts, %d documents; want %d, %d", got, d, first, docs)
	}
	// The session resumes: the transcript grows.
	more, err := os.ReadFile(filepath.Join(fixtures, "claude-code", "transcript-more.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(more)
	f.Close()
	if _, err := p.run(t, "claude-code", "SessionEnd", nil); err != nil {
		t.Fatal(err)
	}
	if got, d := p.facts(t), stat(t, p).Documents; got <= first || d != docs+1 {
		t.Fatalf("after resuming: %d facts, %d documents; want more than %d facts and %d documents", got, d, first, docs+1)
	}
	// A session resumed under a new id, its history copied into a new
	// transcript: the turns are the same items, nothing is added.
	facts, docs := p.facts(t), stat(t, p).Documents
	fork := filepath.Join(filepath.Dir(p.transcript), "fork.jsonl")
	copyFile(t, p.transcript, fork)
	if _, err := p.run(t, "claude-code", "SessionEnd", func(o *hooks.Options) {
		o.Stdin = strings.NewReader(`{"session_id":"another-session","hook_event_name":"SessionEnd","reason":"exit","cwd":` + quote(p.dir) + `,"transcript_path":` + quote(fork) + `}`)
	}); err != nil {
		t.Fatal(err)
	}
	if got, d := p.facts(t), stat(t, p).Documents; got != facts || d != docs {
		t.Errorf("a copied history added %d facts and %d documents", got-facts, d-docs)
	}
	page, err := p.eng.Facts(ctx, p.bank, memory.FactQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, f := range page.Facts {
		all = append(all, f.Text)
	}
	joined := strings.Join(all, "\n")
	for _, w := range []string{"Frankfurt", "PostgreSQL"} {
		if !strings.Contains(joined, w) {
			t.Errorf("facts lack %q:\n%s", w, joined)
		}
	}
	for _, n := range []string{"DSN for the invoices", "note the owner", "/clear"} {
		if strings.Contains(joined, n) {
			t.Errorf("facts hold %q, from a line that is not a message:\n%s", n, joined)
		}
	}
}

func stat(t *testing.T, p *project) *memory.Stats {
	t.Helper()
	st, err := p.eng.Stats(context.Background(), p.bank)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// failing is an engine whose every call fails, or blocks until its
// context ends.
type failing struct{ block bool }

var errBroken = errors.New("database is broken")

func (f failing) wait(ctx context.Context) error {
	if f.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return errBroken
}
func (f failing) Context(ctx context.Context, _ string, _ mnemo.ContextRequest) (*mnemo.ContextResult, error) {
	return nil, f.wait(ctx)
}
func (f failing) RetainTranscript(ctx context.Context, _ mnemo.TranscriptOptions) (*mnemo.TranscriptResult, error) {
	return nil, f.wait(ctx)
}
func (f failing) CreateBank(ctx context.Context, _ string) (*memory.Bank, error) {
	return nil, f.wait(ctx)
}

// A failing store, a store that never answers, an engine that cannot
// open, bad input: an error to log and nothing on stdout, for every
// event; the time limit holds.
func TestRun_FailuresPrintNothing(t *testing.T) {
	p := newProject(t)
	events := map[string][]string{"claude-code": {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"}, "gemini-cli": {"SessionStart", "BeforeAgent"}, "codex": {"SessionStart", "UserPromptSubmit"}}
	for harness, evs := range events {
		for _, ev := range evs {
			for _, c := range []struct {
				name string
				open func(context.Context) (hooks.Engine, func() error, error)
			}{
				{"failing", func(context.Context) (hooks.Engine, func() error, error) {
					return failing{}, func() error { return nil }, nil
				}},
				{"blocking", func(context.Context) (hooks.Engine, func() error, error) {
					return failing{block: true}, func() error { return nil }, nil
				}},
				{"unopenable", func(context.Context) (hooks.Engine, func() error, error) { return nil, nil, errBroken }},
			} {
				start := time.Now()
				out, err := p.run(t, harness, ev, func(o *hooks.Options) { o.Open = c.open; o.Timeout = 100 * time.Millisecond })
				if err == nil || out != "" {
					t.Errorf("%s %s with a %s store: output %q, err %v; want an error and nothing", harness, ev, c.name, out, err)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%s %s with a %s store took %s, past its 100ms limit", harness, ev, c.name, d)
				}
			}
		}
	}
	// A harness that never closes stdin does not hold the hook past its
	// limit.
	pr, pw := io.Pipe()
	defer pw.Close()
	start := time.Now()
	out, err := p.run(t, "claude-code", "SessionStart", func(o *hooks.Options) { o.Stdin = pr; o.Timeout = 100 * time.Millisecond })
	if err == nil || out != "" || time.Since(start) > 5*time.Second {
		t.Errorf("stdin never closed: output %q, err %v after %s", out, err, time.Since(start))
	}
	for _, c := range []struct{ harness, event, in string }{
		{"claude-code", "SessionStart", "not json"},
		{"claude-code", "PostToolUse", `{}`},
		{"cursor", "stop", `{}`},
	} {
		out, err := p.run(t, c.harness, c.event, func(o *hooks.Options) { o.Stdin = strings.NewReader(c.in) })
		if err == nil || out != "" {
			t.Errorf("%s %s %q: output %q, err %v; want an error and nothing", c.harness, c.event, c.in, out, err)
		}
	}
}

// The bank: --bank, then $MNEMO_BANK, then the repository's, then the
// default bank.
func TestRun_Bank(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	for _, b := range []string{"flagbank", "envbank"} {
		if _, err := p.eng.CreateBank(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := p.eng.AddDirective(ctx, b, "Rule of "+b+".", nil); err != nil {
			t.Fatal(err)
		}
	}
	env := func(k string) string {
		if k == hooks.BankEnv {
			return "envbank"
		}
		return ""
	}
	out, _ := p.run(t, "claude-code", "SessionStart", func(o *hooks.Options) { o.Bank = "flagbank"; o.Getenv = env })
	if !strings.Contains(out, "Rule of flagbank.") {
		t.Errorf("--bank: %s", out)
	}
	out, _ = p.run(t, "claude-code", "SessionStart", func(o *hooks.Options) { o.Getenv = env })
	if !strings.Contains(out, "Rule of envbank.") {
		t.Errorf("$MNEMO_BANK: %s", out)
	}
	if _, err := p.run(t, "claude-code", "Stop", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.eng.Bank(ctx, hooks.ProjectBank(p.dir)); err != nil {
		t.Errorf("the repository's bank was not made: %v", err)
	}
	if !strings.HasPrefix(hooks.ProjectBank(p.dir), "project-shop-") || hooks.ProjectBank(p.dir) == hooks.ProjectBank(filepath.Join(t.TempDir(), "shop")) {
		t.Errorf("ProjectBank(%s) = %s: want project-shop- and a hash of the path", p.dir, hooks.ProjectBank(p.dir))
	}
	sub := filepath.Join(p.dir, "billing", "db")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := hooks.ProjectRoot(sub); got != p.dir {
		t.Errorf("ProjectRoot(%s) = %s, want %s", sub, got, p.dir)
	}
}

// A secret in a coding transcript (a key pasted into the chat, a .env
// file the assistant printed) is masked before the hook retains the
// transcript: no database file holds it afterwards (WAL included).
func TestRun_TranscriptSecretsMasked(t *testing.T) {
	p := newProject(t)
	const key, dsn = "sk-proj-HookQ9zXw2LmN8pR7tV1yB3cD6eF0gH5j", "S3cr3t-H00k-Pw!"
	line := `{"parentUuid":"u4","isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":"9f1c2a7e-4b1d-4c55-9a0e-2f6f3d1b7c11","version":"2.0.14","gitBranch":"main","type":"user","message":{"role":"user","content":"Deploy with OPENAI_API_KEY=` + key + ` and DATABASE_URL=postgres://shop:` + dsn + `@db.internal/shop please."},"uuid":"u9","timestamp":"2026-11-03T11:00:00.000Z"}` + "\n"
	f, err := os.OpenFile(p.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line)
	f.Close()
	if _, err := p.run(t, "claude-code", "SessionEnd", nil); err != nil {
		t.Fatal(err)
	}
	rec, err := p.eng.Recall(context.Background(), memory.Query{BankID: p.bank, Text: "deploy OPENAI_API_KEY DATABASE_URL"})
	if err != nil || !strings.Contains(rec.Context, "[REDACTED:") {
		t.Fatalf("recall: %v\n%s\nwant the deploy note with its secrets redacted", err, rec.Context)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(p.transcript), "m.db*"))
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, name := range files {
		b, _ := os.ReadFile(name)
		for _, s := range []string{key, dsn} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", filepath.Base(name), s[:6])
			}
		}
	}
}

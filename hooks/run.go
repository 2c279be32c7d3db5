package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// Engine is what a hook needs of mnemo's façade.
type Engine interface {
	Context(ctx context.Context, bank string, req mnemo.ContextRequest) (*mnemo.ContextResult, error)
	RetainTranscript(ctx context.Context, o mnemo.TranscriptOptions) (*mnemo.TranscriptResult, error)
	CreateBank(ctx context.Context, name string) (*memory.Bank, error)
}

// Time limits of the events, unless Options.Timeout says otherwise: a
// context is read in well under a second, so a slow one is a broken one;
// retaining a long transcript may take longer, and what it wrote before
// the limit stays written.
const (
	DefaultContextTimeout = 5 * time.Second
	DefaultPromptTimeout  = 3 * time.Second
	DefaultRetainTimeout  = 60 * time.Second
)

// Defaults of what a hook injects.
const (
	// DefaultSessionBudget is the token budget of a session's start
	// context.
	DefaultSessionBudget = 1500
	// DefaultPromptBudget is the token budget of a prompt's memories.
	DefaultPromptBudget = 600
	// DefaultMinSimilarity is the relevance floor of a prompt's
	// memories (see mnemo.ContextRequest.MinSimilarity).
	DefaultMinSimilarity = 0.35
)

// maxInput bounds the hook JSON read from stdin.
const maxInput = 8 << 20

// Options configure Run.
type Options struct {
	Harness string
	Event   string
	// Bank, when not empty, is the bank (the --bank flag); else BankEnv
	// in the environment, else the project's bank (ProjectBank) unless
	// PerProject is false, else the default bank.
	Bank       string
	PerProject bool
	// Timeout, when positive, replaces the event's default time limit.
	Timeout time.Duration
	// Budget, when positive, replaces the event's default token budget.
	Budget int
	// MinSimilarity, when positive, replaces DefaultMinSimilarity.
	MinSimilarity float64
	// Open opens the engine; its time counts in the limit. close is
	// called when the event is done.
	Open   func(ctx context.Context) (eng Engine, close func() error, err error)
	Stdin  io.Reader
	Stdout io.Writer
	// Getenv reads the environment (BankEnv); nil means none.
	Getenv func(string) string
	// Dir is the folder of an event whose JSON names no cwd (the
	// process's working folder, for the command).
	Dir string
}

// BankEnv names the environment variable a hook takes its bank from.
const BankEnv = "MNEMO_BANK"

// Input is the part of a harness's hook JSON mnemo reads; the harnesses
// share these names.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`
}

// Run handles one hook event: it reads the event's JSON from o.Stdin,
// does what the harness's event asks for within the time limit, and only
// then writes the harness's output to o.Stdout, whole, or nothing. Any
// failure — an unknown harness or event, bad JSON, a store that fails, the
// time limit — is returned with nothing written; the caller logs it and
// exits 0.
func Run(ctx context.Context, o Options) error {
	h, err := Lookup(o.Harness)
	if err != nil {
		return err
	}
	action, ok := h.Events[o.Event]
	if !ok {
		return memory.Errorf(memory.EINVALID, "%s event %q: mnemo handles %s", h.Name, o.Event, strings.Join(h.EventNames(), ", "))
	}
	limit := o.Timeout
	if limit <= 0 {
		limit = map[Action]time.Duration{ActionContext: DefaultContextTimeout, ActionPrompt: DefaultPromptTimeout, ActionRetain: DefaultRetainTimeout}[action]
	}
	// The limit covers reading stdin too: a harness that never closes it
	// must not hold the hook.
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		raw, err := io.ReadAll(io.LimitReader(o.Stdin, maxInput+1))
		if err != nil {
			done <- result{nil, fmt.Errorf("read the hook input: %w", err)}
			return
		}
		if len(raw) > maxInput {
			done <- result{nil, fmt.Errorf("the hook input is longer than %d bytes", maxInput)}
			return
		}
		var in Input
		if err := json.Unmarshal(raw, &in); err != nil {
			done <- result{nil, fmt.Errorf("the hook input is not JSON: %w", err)}
			return
		}
		out, err := handle(ctx, h, action, o, &in)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return r.err
		}
		if len(r.out) == 0 {
			return nil
		}
		_, err := o.Stdout.Write(r.out)
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s %s: no answer within %s", h.Name, o.Event, limit)
	}
}

// handle does the event's action and returns the output to print.
func handle(ctx context.Context, h *Harness, action Action, o Options, in *Input) ([]byte, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	bank, scope := resolveBank(o, in, getenv)
	if action == ActionRetain && (in.TranscriptPath == "" || h.Transcript == nil) {
		return nil, nil // nothing to retain
	}
	if action == ActionPrompt && strings.TrimSpace(in.Prompt) == "" {
		return nil, nil
	}
	eng, closeEng, err := o.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer closeEng()
	var scopes []string
	if scope != "" {
		scopes = []string{scope}
	}
	switch action {
	case ActionContext, ActionPrompt:
		req := mnemo.ContextRequest{Scopes: scopes, Budget: DefaultSessionBudget}
		if action == ActionPrompt {
			req = mnemo.ContextRequest{Query: in.Prompt, Scopes: scopes, Budget: DefaultPromptBudget,
				Sections: []string{wire.SectionFacts}, MinSimilarity: DefaultMinSimilarity}
			if o.MinSimilarity > 0 {
				req.MinSimilarity = o.MinSimilarity
			}
		}
		if o.Budget > 0 {
			req.Budget = o.Budget
		}
		res, err := eng.Context(ctx, bank, req)
		if memory.ErrorCode(err) == memory.ENOTFOUND {
			return nil, nil // a bank not made yet: nothing to say
		}
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(res.Text) == "" {
			return nil, nil
		}
		text := "Memories from mnemo (bank " + bank + "):\n\n" + res.Text
		if action == ActionPrompt {
			text = "Memories from mnemo that may bear on this prompt (bank " + bank + "):\n\n" + res.Text
		}
		out, err := h.Output(o.Event, text)
		if err != nil {
			return nil, err
		}
		return append(out, '\n'), nil
	case ActionRetain:
		if _, err := eng.CreateBank(ctx, bank); err != nil && memory.ErrorCode(err) != memory.ECONFLICT {
			return nil, err
		}
		source := h.Name + ":" + in.SessionID
		if in.SessionID == "" {
			source = h.Name + ":" + filepath.Base(in.TranscriptPath)
		}
		meta := map[string]string{"harness": h.Name}
		if in.SessionID != "" {
			meta["session"] = in.SessionID
		}
		if scope != "" {
			meta["project"] = scope
		}
		_, err := eng.RetainTranscript(ctx, mnemo.TranscriptOptions{Bank: bank, Source: source, Path: in.TranscriptPath, Parse: h.Transcript, Metadata: meta,
			TurnStart: h.TurnStart, ItemPrefix: h.Name + ":"})
		return nil, err
	}
	return nil, errors.New("unknown action")
}

// resolveBank is the bank of a hook (see Options.Bank) and the scope of
// its context: the project's name, so that directives scoped to the
// project apply.
func resolveBank(o Options, in *Input, getenv func(string) string) (bank, scope string) {
	dir := in.Cwd
	if dir == "" {
		dir = o.Dir
	}
	root := ProjectRoot(dir)
	if root != "" {
		scope = ScopeName(root)
	}
	switch {
	case o.Bank != "":
		return o.Bank, scope
	case getenv(BankEnv) != "":
		return getenv(BankEnv), scope
	case o.PerProject && root != "":
		return ProjectBank(root), scope
	}
	return memory.DefaultBank, scope
}

// ProjectRoot is the repository dir is in (the nearest folder above it
// with a .git), or dir itself when it is in none; "" for no dir.
func ProjectRoot(dir string) string {
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ScopeName is a project folder's scope: its base name, cut to what a
// scope may hold.
func ScopeName(root string) string {
	s := strings.Trim(unsafeName.ReplaceAllString(filepath.Base(root), "-"), "-._")
	if s == "" {
		s = "project"
	}
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// ProjectBank is the bank of a repository: "project-<name>-<8 hex digits
// of its path's hash>", so that two checkouts with the same name keep
// apart.
func ProjectBank(root string) string {
	sum := sha256.Sum256([]byte(root))
	return "project-" + ScopeName(root) + "-" + hex.EncodeToString(sum[:4])
}

// parseTime reads an RFC 3339 time, or gives zero.
func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

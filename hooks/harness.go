// Package hooks connects mnemo to coding-agent harnesses (Claude Code,
// Gemini CLI, Codex) through their command hooks: `mnemo hook HARNESS
// EVENT` reads the event's JSON on stdin and writes what the harness
// expects on stdout — the memory context at a session's start, the
// memories relevant to a prompt, nothing for the events that retain the
// session's transcript — and `mnemo install HARNESS` writes the hook and
// MCP configuration into the harness's settings.
//
// A hook never hurts the agent: each event has a hard time limit, and on
// any error or timeout Run prints nothing and the command exits 0 after
// logging one line.
package hooks

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// Action is what a hook event does.
type Action int

const (
	// ActionContext prints the memory context for a session's start.
	ActionContext Action = iota + 1
	// ActionPrompt prints the memories relevant to the user's prompt,
	// only those that clear the relevance floor, and nothing when none
	// does.
	ActionPrompt
	// ActionRetain retains the session's transcript past its watermark
	// and prints nothing.
	ActionRetain
)

// Harness is one agent harness's hook interface, as its documentation
// gives it.
type Harness struct {
	// Name is how `mnemo hook` and `mnemo install` spell it.
	Name string
	// Events maps the harness's event names, spelled as it spells them,
	// to what each does.
	Events map[string]Action
	// Output is the JSON the harness reads on stdout to add text to the
	// model's context for event.
	Output func(event, text string) ([]byte, error)
	// Transcript reads one line of the harness's transcript file; nil
	// when the harness's transcript format is not supported.
	Transcript func(line []byte) (memory.Message, bool)
	// TurnStart reports whether a transcript message starts a turn (see
	// mnemo.TranscriptOptions.TurnStart).
	TurnStart func(memory.Message) bool
	// Settings is where `mnemo install` writes the hooks and the MCP
	// server, per scope.
	Settings func(home, project string, scope Scope) []SettingsFile
	// TimeoutUnit is the unit of the "timeout" of a hook entry in the
	// harness's settings: 1 for seconds, 1000 for milliseconds.
	TimeoutUnit int
}

// EventNames lists the harness's supported events, sorted.
func (h *Harness) EventNames() []string {
	names := make([]string, 0, len(h.Events))
	for n := range h.Events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// harnesses are the supported harnesses by name.
var harnesses = map[string]*Harness{
	"claude-code": claudeCode,
	"gemini-cli":  geminiCLI,
	"codex":       codex,
}

// Lookup returns the harness of that name, or an EINVALID error that
// names the supported ones.
func Lookup(name string) (*Harness, error) {
	if h, ok := harnesses[name]; ok {
		return h, nil
	}
	return nil, memory.Errorf(memory.EINVALID, "harness %q: use one of %s", name, strings.Join(Names(), ", "))
}

// Names lists the supported harnesses, sorted.
func Names() []string {
	names := make([]string, 0, len(harnesses))
	for n := range harnesses {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// additionalContext is the hook output Claude Code (and the harnesses
// that follow its schema) reads for SessionStart and UserPromptSubmit:
// {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext":
// TEXT}}.
func additionalContext(event, text string) ([]byte, error) {
	return json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": text}})
}

// claudeCode is Claude Code (code.claude.com/docs/en/hooks): the event's
// JSON on stdin (session_id, transcript_path, cwd, hook_event_name, and
// prompt for UserPromptSubmit); on stdout, for SessionStart and
// UserPromptSubmit, hookSpecificOutput.additionalContext. The transcript
// is JSON lines of user and assistant messages.
var claudeCode = &Harness{
	Name: "claude-code",
	Events: map[string]Action{
		"SessionStart":     ActionContext,
		"UserPromptSubmit": ActionPrompt,
		"PreCompact":       ActionRetain,
		"Stop":             ActionRetain,
		"SessionEnd":       ActionRetain,
	},
	Output:      additionalContext,
	Transcript:  claudeTranscriptLine,
	TurnStart:   func(m memory.Message) bool { return m.Speaker == "user" },
	Settings:    claudeSettings,
	TimeoutUnit: 1,
}

// geminiCLI is Gemini CLI (geminicli.com/docs/hooks/reference): the same
// base input (session_id, transcript_path, cwd, hook_event_name,
// timestamp; prompt for BeforeAgent); SessionStart's and BeforeAgent's
// hookSpecificOutput.additionalContext is added to the model's context.
// Its transcript format is not documented as a stable interface, so
// SessionEnd and PreCompress retain nothing and are not installed.
var geminiCLI = &Harness{
	Name: "gemini-cli",
	Events: map[string]Action{
		"SessionStart": ActionContext,
		"BeforeAgent":  ActionPrompt,
	},
	Output: func(_, text string) ([]byte, error) {
		return json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{"additionalContext": text}})
	},
	Settings:    geminiSettings,
	TimeoutUnit: 1000,
}

// codex is OpenAI's Codex CLI, whose hooks (hooks.json, behind the
// codex_hooks feature) follow Claude Code's schema: SessionStart and
// UserPromptSubmit with hookSpecificOutput.additionalContext. Its
// session files are not Claude Code's transcript, so Stop retains
// nothing and is not installed.
var codex = &Harness{
	Name: "codex",
	Events: map[string]Action{
		"SessionStart":     ActionContext,
		"UserPromptSubmit": ActionPrompt,
	},
	Output:      additionalContext,
	Settings:    codexSettings,
	TimeoutUnit: 1,
}

// claudeLine is the part of a Claude Code transcript line a memory
// needs.
type claudeLine struct {
	Type        string `json:"type"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	UUID        string `json:"uuid"`
	Timestamp   string `json:"timestamp"`
	Message     struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// claudeTranscriptLine reads one line of a Claude Code transcript: a user
// message (its text, or its text blocks) or the text blocks of an
// assistant message. Tool calls, tool results, thinking, meta and
// sidechain (subagent) lines, and the harness's own command echoes are
// left out.
func claudeTranscriptLine(raw []byte) (memory.Message, bool) {
	var l claudeLine
	if err := json.Unmarshal(raw, &l); err != nil || l.IsMeta || l.IsSidechain {
		return memory.Message{}, false
	}
	if l.Type != "user" && l.Type != "assistant" {
		return memory.Message{}, false
	}
	var text string
	var s string
	if err := json.Unmarshal(l.Message.Content, &s); err == nil {
		text = s
	} else {
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
			return memory.Message{}, false
		}
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				parts = append(parts, b.Text)
			}
		}
		text = strings.Join(parts, "\n")
	}
	text = strings.TrimSpace(text)
	if text == "" || strings.HasPrefix(text, "<command-") || strings.HasPrefix(text, "<local-command-") || strings.HasPrefix(text, "Caveat: The messages below") {
		return memory.Message{}, false
	}
	msg := memory.Message{ID: l.UUID, Speaker: l.Type, Text: text}
	msg.Time = parseTime(l.Timestamp)
	return msg, true
}

package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// Scope is where `mnemo install` writes: the user's settings (every
// project) or one project's.
type Scope string

const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// SettingsFile is one file `mnemo install` edits, and what it puts there.
type SettingsFile struct {
	Path string
	// Hooks: the file holds the harness's hooks ("hooks": event → groups
	// of hook entries).
	Hooks bool
	// MCP: the file holds the MCP server ("mcpServers": {"mnemo": …}).
	MCP bool
	// TOML: the file is Codex's config.toml, edited line by line
	// (tomledit.go): the MCP server as [mcp_servers.mnemo] and the
	// codex_hooks feature on.
	TOML bool
}

// claudeSettings: hooks in settings.json, the MCP server in ~/.claude.json
// (user) or .mcp.json (project).
func claudeSettings(home, project string, scope Scope) []SettingsFile {
	if scope == ScopeProject {
		return []SettingsFile{{Path: filepath.Join(project, ".claude", "settings.json"), Hooks: true}, {Path: filepath.Join(project, ".mcp.json"), MCP: true}}
	}
	return []SettingsFile{{Path: filepath.Join(home, ".claude", "settings.json"), Hooks: true}, {Path: filepath.Join(home, ".claude.json"), MCP: true}}
}

// geminiSettings: hooks and the MCP server in settings.json.
func geminiSettings(home, project string, scope Scope) []SettingsFile {
	dir := home
	if scope == ScopeProject {
		dir = project
	}
	return []SettingsFile{{Path: filepath.Join(dir, ".gemini", "settings.json"), Hooks: true, MCP: true}}
}

// codexSettings: hooks in hooks.json; the MCP server, and the
// codex_hooks feature that makes Codex read hooks.json, in config.toml.
func codexSettings(home, project string, scope Scope) []SettingsFile {
	dir := home
	if scope == ScopeProject {
		dir = project
	}
	return []SettingsFile{{Path: filepath.Join(dir, ".codex", "hooks.json"), Hooks: true},
		{Path: filepath.Join(dir, ".codex", "config.toml"), TOML: true}}
}

// InstallOptions configure Install and Uninstall.
type InstallOptions struct {
	Harness string
	Scope   Scope
	// Home is the user's home folder; Project the project's folder (for
	// ScopeProject).
	Home, Project string
	// Command is the mnemo executable the hooks and the MCP server run;
	// Args are flags put before the subcommand (--db, --bank).
	Command string
	Args    []string
	// MCPArgs are flags for the MCP server only, after Args (a
	// project's bank, so that its tools use the bank its hooks fill).
	MCPArgs []string
}

// FileChange is what Install or Uninstall did to one file.
type FileChange struct {
	Path string `json:"path"`
	// Action is "written", "unchanged", "restored" (the file as it was
	// before install, byte for byte), "removed" (install had created it)
	// or "cleaned" (mnemo's entries taken out of a file changed since).
	Action string `json:"action"`
	// Backup is the copy of the file as it was before install, while it
	// is kept.
	Backup string `json:"backup,omitempty"`
}

// manifest records an install next to the file it changed, for Uninstall.
type manifest struct {
	Existed   bool   `json:"existed"`
	Installed string `json:"installed_sha256"`
}

func backupPath(path string) string   { return path + ".mnemo-backup" }
func manifestPath(path string) string { return path + ".mnemo-install.json" }

// settingsFiles checks o and returns the harness and its files.
func (o InstallOptions) settingsFiles() (*Harness, []SettingsFile, error) {
	h, err := Lookup(o.Harness)
	if err != nil {
		return nil, nil, err
	}
	switch o.Scope {
	case ScopeUser:
		if o.Home == "" {
			return nil, nil, memory.Errorf(memory.EINVALID, "no home folder to install into")
		}
	case ScopeProject:
		if o.Project == "" {
			return nil, nil, memory.Errorf(memory.EINVALID, "no project folder to install into")
		}
	default:
		return nil, nil, memory.Errorf(memory.EINVALID, "scope %q: use user or project", o.Scope)
	}
	if o.Command == "" {
		return nil, nil, memory.Errorf(memory.EINVALID, "no mnemo command to install")
	}
	return h, h.Settings(o.Home, o.Project, o.Scope), nil
}

// Install writes mnemo's hooks (every event the harness supports) and
// its MCP server into the harness's settings files for o.Scope. It is
// idempotent: mnemo's entries are replaced, never added twice, so a
// second run changes nothing. Every other setting is kept. Before it
// first changes a file it keeps a copy beside it (FILE.mnemo-backup, and
// FILE.mnemo-install.json to know it by), which Uninstall restores. A
// file that is not a JSON object is EINVALID and nothing is written.
func Install(o InstallOptions) ([]FileChange, error) {
	h, files, err := o.settingsFiles()
	if err != nil {
		return nil, err
	}
	// Read and check every file before writing any.
	type edit struct {
		f       SettingsFile
		old     []byte
		existed bool
		new     []byte
	}
	var edits []edit
	for _, f := range files {
		old, existed, err := readSettings(f.Path)
		if err != nil {
			return nil, err
		}
		if f.TOML {
			if err := checkTOML(f.Path, old); err != nil {
				return nil, err
			}
			edits = append(edits, edit{f, old, existed, installTOML(old, o)})
			continue
		}
		obj, err := settingsObject(f.Path, old)
		if err != nil {
			return nil, err
		}
		strip(obj, h)
		if f.Hooks {
			addHooks(obj, h, o)
		}
		if f.MCP {
			addMCP(obj, h, o)
		}
		out, err := formatJSON(obj)
		if err != nil {
			return nil, err
		}
		edits = append(edits, edit{f, old, existed, out})
	}
	var changes []FileChange
	for _, e := range edits {
		if e.existed && bytes.Equal(e.old, e.new) {
			changes = append(changes, FileChange{Path: e.f.Path, Action: "unchanged", Backup: existingBackup(e.f.Path)})
			continue
		}
		if _, err := os.Stat(manifestPath(e.f.Path)); errors.Is(err, fs.ErrNotExist) {
			// First change: keep the file as it was.
			if e.existed {
				if err := writeFile(backupPath(e.f.Path), e.old); err != nil {
					return changes, err
				}
			}
			if err := writeManifest(e.f.Path, manifest{Existed: e.existed}); err != nil {
				return changes, err
			}
		} else if err != nil {
			return changes, err
		}
		m, err := readManifest(e.f.Path)
		if err != nil {
			return changes, err
		}
		m.Installed = sha(e.new)
		if err := writeFile(e.f.Path, e.new); err != nil {
			return changes, err
		}
		if err := writeManifest(e.f.Path, *m); err != nil {
			return changes, err
		}
		changes = append(changes, FileChange{Path: e.f.Path, Action: "written", Backup: existingBackup(e.f.Path)})
	}
	return changes, nil
}

// Uninstall takes mnemo out of the harness's settings files for
// o.Scope. A file install changed and nobody changed since is restored
// byte for byte from its backup (or removed, if install created it); a
// file changed since keeps those changes and loses only mnemo's entries
// (its backup is kept). A file install never touched is cleaned of
// mnemo's entries if it has any.
func Uninstall(o InstallOptions) ([]FileChange, error) {
	h, files, err := o.settingsFiles()
	if err != nil {
		return nil, err
	}
	var changes []FileChange
	for _, f := range files {
		cur, existed, err := readSettings(f.Path)
		if err != nil {
			return changes, err
		}
		m, err := readManifest(f.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changes, err
		}
		if m != nil && existed && sha(cur) == m.Installed {
			if m.Existed {
				old, err := os.ReadFile(backupPath(f.Path))
				if err != nil {
					return changes, fmt.Errorf("restore %s: %w", f.Path, err)
				}
				if err := writeFile(f.Path, old); err != nil {
					return changes, err
				}
				changes = append(changes, FileChange{Path: f.Path, Action: "restored"})
			} else {
				if err := os.Remove(f.Path); err != nil {
					return changes, err
				}
				changes = append(changes, FileChange{Path: f.Path, Action: "removed"})
			}
			os.Remove(backupPath(f.Path))
			if err := os.Remove(manifestPath(f.Path)); err != nil {
				return changes, err
			}
			continue
		}
		if !existed {
			if m != nil {
				os.Remove(manifestPath(f.Path))
			}
			continue
		}
		out, changed, err := stripped(f, h, cur)
		if err != nil {
			return changes, err
		}
		if !changed {
			changes = append(changes, FileChange{Path: f.Path, Action: "unchanged"})
			continue
		}
		if err := writeFile(f.Path, out); err != nil {
			return changes, err
		}
		if m != nil {
			os.Remove(manifestPath(f.Path))
		}
		changes = append(changes, FileChange{Path: f.Path, Action: "cleaned", Backup: existingBackup(f.Path)})
	}
	return changes, nil
}

// stripped returns the settings file f (bytes cur) without mnemo's
// entries, and whether it had any.
func stripped(f SettingsFile, h *Harness, cur []byte) ([]byte, bool, error) {
	if f.TOML {
		out, changed := stripTOML(cur)
		return out, changed, nil
	}
	obj, err := settingsObject(f.Path, cur)
	if err != nil {
		return nil, false, err
	}
	if !strip(obj, h) {
		return cur, false, nil
	}
	out, err := formatJSON(obj)
	return out, true, err
}

// hookTimeouts are the harness-side limits written into the settings, in
// seconds: above mnemo's own (Run), so that mnemo's fires first and the
// harness never sees a hook killed.
var hookTimeouts = map[Action]int{ActionContext: 10, ActionPrompt: 10, ActionRetain: 120}

// command is the shell command of a hook or the MCP server: mnemo's
// path (quoted when it needs it), the global flags, then args.
func (o InstallOptions) command(args ...string) string {
	parts := []string{shellQuote(o.Command)}
	for _, a := range append(append([]string{}, o.Args...), args...) {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes s for a POSIX shell unless it needs none.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// addHooks adds a group with mnemo's hook for every event the harness
// supports.
func addHooks(obj *object, h *Harness, o InstallOptions) {
	hooks, ok := obj.get("hooks").(*object)
	if !ok {
		hooks = newObject()
		obj.set("hooks", hooks)
	}
	for _, ev := range h.EventNames() {
		entry := newObject()
		if h.Name == "gemini-cli" {
			entry.set("name", "mnemo-"+strings.ToLower(ev))
		}
		entry.set("type", "command")
		entry.set("command", o.command("hook", h.Name, ev))
		entry.set("timeout", hookTimeouts[h.Events[ev]]*h.TimeoutUnit)
		group := newObject()
		group.set("hooks", []any{entry})
		groups, _ := hooks.get(ev).([]any)
		hooks.set(ev, append(groups, group))
	}
}

// addMCP adds mnemo's MCP server (stdio: `mnemo mcp`).
func addMCP(obj *object, h *Harness, o InstallOptions) {
	servers, ok := obj.get("mcpServers").(*object)
	if !ok {
		servers = newObject()
		obj.set("mcpServers", servers)
	}
	srv := newObject()
	if h.Name == "claude-code" {
		srv.set("type", "stdio")
	}
	srv.set("command", o.Command)
	args := []any{}
	for _, a := range append(append([]string{}, o.Args...), o.MCPArgs...) {
		args = append(args, a)
	}
	srv.set("args", append(args, "mcp"))
	servers.set("mnemo", srv)
}

// ourHook matches the command of a hook entry mnemo installed for a
// harness: the mnemo executable, then "hook HARNESS EVENT".
func ourHook(h *Harness, cmd string) bool {
	return strings.Contains(cmd, "mnemo") && strings.Contains(cmd, " hook "+h.Name+" ")
}

// strip takes mnemo's entries for h out of obj — its hook entries (and
// groups and events left empty by that) and its MCP server — and reports
// whether it took anything.
func strip(obj *object, h *Harness) bool {
	changed := false
	if hooks, ok := obj.get("hooks").(*object); ok {
		for _, ev := range append([]string{}, hooks.keys...) {
			groups, ok := hooks.get(ev).([]any)
			if !ok {
				continue
			}
			var kept []any
			for _, g := range groups {
				gobj, ok := g.(*object)
				if !ok {
					kept = append(kept, g)
					continue
				}
				entries, ok := gobj.get("hooks").([]any)
				if !ok {
					kept = append(kept, g)
					continue
				}
				var keptEntries []any
				for _, en := range entries {
					if eobj, ok := en.(*object); ok {
						if c, _ := eobj.get("command").(string); ourHook(h, c) {
							changed = true
							continue
						}
					}
					keptEntries = append(keptEntries, en)
				}
				if len(keptEntries) == len(entries) {
					kept = append(kept, g)
				} else if len(keptEntries) > 0 {
					gobj.set("hooks", keptEntries)
					kept = append(kept, g)
				}
			}
			if len(kept) == 0 && len(groups) > 0 {
				hooks.del(ev)
			} else if len(kept) != len(groups) {
				hooks.set(ev, kept)
			}
		}
		if changed && len(hooks.keys) == 0 {
			obj.del("hooks")
		}
	}
	if servers, ok := obj.get("mcpServers").(*object); ok && servers.get("mnemo") != nil {
		servers.del("mnemo")
		changed = true
		if len(servers.keys) == 0 {
			obj.del("mcpServers")
		}
	}
	return changed
}

// readSettings reads a settings file; a missing one is empty.
func readSettings(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// settingsObject parses a settings file's bytes; empty is {}.
func settingsObject(path string, b []byte) (*object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return newObject(), nil
	}
	obj, err := parseObject(b)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "%s: not a JSON object (%v): fix it or move it away; nothing was changed", path, err)
	}
	return obj, nil
}

func readManifest(path string) (*manifest, error) {
	b, err := os.ReadFile(manifestPath(path))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", manifestPath(path), err)
	}
	return &m, nil
}

func writeManifest(path string, m manifest) error {
	b, err := formatJSON(m)
	if err != nil {
		return err
	}
	return writeFile(manifestPath(path), b)
}

func existingBackup(path string) string {
	if _, err := os.Stat(backupPath(path)); err == nil {
		return backupPath(path)
	}
	return ""
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeFile replaces path with b atomically (a temporary file renamed
// over it), keeping the file's mode; a new file is owner-only (0600), and
// its folder, if missing, is created owner-only too.
func writeFile(path string, b []byte) error {
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

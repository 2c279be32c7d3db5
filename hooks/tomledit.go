package hooks

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

// Codex keeps its settings in TOML (config.toml). mnemo edits the two
// things it needs there line by line, without a TOML library and
// without touching any other line, so a user's comments, order and
// spacing survive:
//
//   - the [mcp_servers.mnemo] table (command and args), written at the
//     end of the file and taken out again by Uninstall;
//   - codex_hooks = true in the [features] table, without which Codex
//     ignores hooks.json. Uninstall restores the file from its backup;
//     a file changed since keeps the feature on (other hooks may use it)
//     and loses only the MCP table.

var (
	// tomlHeader matches a table header line: [name] or [[name]],
	// capturing the name without its brackets (spaces trimmed later).
	tomlHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)
	// tomlFeatureKey matches codex_hooks set inside [features].
	tomlFeatureKey = regexp.MustCompile(`^\s*codex_hooks\s*=`)
	// tomlDottedFeature matches features.codex_hooks set at the top level.
	tomlDottedFeature = regexp.MustCompile(`^\s*features\s*\.\s*codex_hooks\s*=`)
	// tomlInlineFeatures matches features = { … } at the top level.
	tomlInlineFeatures = regexp.MustCompile(`^\s*features\s*=`)
)

// mcpTable is the header of mnemo's MCP server table in config.toml.
const mcpTable = "mcp_servers.mnemo"

// tomlLines splits b into lines, each keeping its newline.
func tomlLines(b []byte) []string {
	var lines []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lines = append(lines, string(b))
			break
		}
		lines = append(lines, string(b[:i+1]))
		b = b[i+1:]
	}
	return lines
}

// tableName returns the name of the table line opens, normalised
// (spaces around dots and quotes around plain keys removed), and
// whether line is a table header at all.
func tableName(line string) (string, bool) {
	m := tomlHeader.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return "", false
	}
	parts := strings.Split(m[1], ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, "."), true
}

// checkTOML refuses what mnemo cannot edit safely: bytes that are not
// UTF-8 (TOML files are), and a features table written inline, which a
// [features] header would redefine.
func checkTOML(path string, b []byte) error {
	if !utf8.Valid(b) {
		return memory.Errorf(memory.EINVALID, "%s: not UTF-8, so not TOML: fix it or move it away; nothing was changed", path)
	}
	top := true
	for _, line := range tomlLines(b) {
		if _, ok := tableName(line); ok {
			top = false
			continue
		}
		if top && tomlInlineFeatures.MatchString(line) {
			return memory.Errorf(memory.EINVALID, "%s: features is an inline table there; add codex_hooks = true to it (or write it as a [features] table) and run install again; nothing was changed", path)
		}
	}
	return nil
}

// stripTOML returns b without mnemo's [mcp_servers.mnemo] table (its
// header and every line up to the next table header), and whether
// there was one.
func stripTOML(b []byte) ([]byte, bool) {
	var out strings.Builder
	in, found := false, false
	for _, line := range tomlLines(b) {
		if name, ok := tableName(line); ok {
			in = name == mcpTable
			if in {
				found = true
				continue
			}
		}
		if !in {
			out.WriteString(line)
		}
	}
	if !found {
		return b, false
	}
	return []byte(out.String()), true
}

// installTOML returns b with codex_hooks = true in its features and
// mnemo's MCP server table at its end (replacing any earlier one).
func installTOML(b []byte, o InstallOptions) []byte {
	b, _ = stripTOML(b)
	lines := tomlLines(b)
	// Turn the feature on where it is set, or add it to [features], or
	// add a [features] table.
	set, featuresAt, table := -1, -1, ""
	for i, line := range lines {
		if name, ok := tableName(line); ok {
			table = name
			if name == "features" && featuresAt < 0 {
				featuresAt = i
			}
			continue
		}
		if (table == "features" && tomlFeatureKey.MatchString(line)) || (table == "" && tomlDottedFeature.MatchString(line)) {
			set = i
		}
	}
	switch {
	case set >= 0:
		key := strings.TrimRight(lines[set][:strings.Index(lines[set], "=")], " \t")
		lines[set] = key + " = true\n"
	case featuresAt >= 0:
		lines = append(lines[:featuresAt+1], append([]string{"codex_hooks = true\n"}, lines[featuresAt+1:]...)...)
	default:
		lines = appendTable(lines, "[features]\ncodex_hooks = true\n")
	}
	args := append(append(append([]string{}, o.Args...), o.MCPArgs...), "mcp")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	lines = appendTable(lines, fmt.Sprintf("[%s]\ncommand = %s\nargs = [%s]\n", mcpTable, tomlString(o.Command), strings.Join(quoted, ", ")))
	return []byte(strings.Join(lines, ""))
}

// appendTable appends a table to lines, after a newline if the last
// line lacks one and a blank line if the file is not empty.
func appendTable(lines []string, table string) []string {
	if n := len(lines); n > 0 {
		if !strings.HasSuffix(lines[n-1], "\n") {
			lines[n-1] += "\n"
		}
		if strings.TrimSpace(lines[n-1]) != "" {
			lines = append(lines, "\n")
		}
	}
	return append(lines, table)
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

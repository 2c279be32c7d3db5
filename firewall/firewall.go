// Package firewall keeps secrets out of memory. What agents hand over is
// raw — coding transcripts carry API keys, .env files, tokens and
// connection strings — and a memory replays what it stores into every
// future prompt. Mask finds the common key and token formats, private
// keys, connection strings with passwords and high-entropy assignments,
// and replaces each with "[REDACTED:kind]" before anything is written, so
// the stored text, the full-text index, the vectors' input, chunks and
// documents alike never hold the secret.
//
// The detectors favour precision on ordinary prose: each format is
// anchored on its own prefix or shape, and a bare assignment
// ("password = …") is masked only when its value looks like a secret
// (long enough, mixed enough, not a plain word).
package firewall

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// Finding is one secret found in a text.
type Finding struct {
	// Kind names the format, e.g. "openai_key", "private_key".
	Kind string
	// Start and End are the byte offsets of the masked span in the
	// original text.
	Start, End int
}

// detector finds one kind of secret. pattern's group "secret", when
// present, is the part masked (a connection string keeps its user and
// host); one of prefilter's words, when set, must occur in the text,
// ignoring case, for the pattern to run at all.
type detector struct {
	kind      string
	prefilter []string
	pattern   func() *regexp.Regexp // compiled on first use (lazy)
	// find, when set instead of pattern, returns the spans to mask.
	find func(text string) [][2]int
	// check, when set, must accept the secret.
	check func(secret string) bool
	// need, when set, is a cheap test that every text holding a match of
	// pattern passes: the pattern runs only on those.
	need func(text string) bool
}

// lazy compiles expr on first use: the detectors' expressions would
// otherwise cost every mnemo process half a megabyte at start-up.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var detectors = []detector{
	{kind: "private_key", prefilter: []string{"private key-----"},
		pattern: lazy(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)`)},
	{kind: "anthropic_key", prefilter: []string{"sk-ant-"},
		pattern: lazy(`\bsk-ant-[A-Za-z0-9_\-]{20,}`)},
	{kind: "openai_key", prefilter: []string{"sk-"},
		pattern: lazy(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}`)},
	{kind: "github_token", prefilter: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		pattern: lazy(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{kind: "aws_access_key", prefilter: []string{"akia", "asia"},
		pattern: lazy(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{kind: "slack_token", prefilter: []string{"xox"},
		pattern: lazy(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`)},
	{kind: "stripe_key", prefilter: []string{"_live_", "_test_"},
		pattern: lazy(`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`)},
	{kind: "google_api_key", prefilter: []string{"aiza"},
		pattern: lazy(`\bAIza[0-9A-Za-z_\-]{35}`)},
	{kind: "mnemo_key", prefilter: []string{"mnemo_"},
		pattern: lazy(`\bmnemo_[A-Za-z0-9_\-]{43}\b`)},
	{kind: "jwt", prefilter: []string{"eyj"},
		pattern: lazy(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
	{kind: "connection_string", prefilter: []string{"://"},
		pattern: lazy(`\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@"'<>]{1,128}:(?P<secret>[^\s@/"'<>]{1,256})@[^\s"'<>]+`),
		check:   func(s string) bool { return s != "" && !strings.HasPrefix(s, "$") && !strings.HasPrefix(s, "{") },
		need:    credentialURL},
	{kind: "bearer_token", prefilter: []string{"bearer "},
		pattern: lazy(`(?i)\bbearer\s+(?P<secret>[A-Za-z0-9_\-.=+/]{16,})`),
		check:   looksSecret},
	{kind: "assignment", prefilter: []string{"key", "secret", "token", "pass", "pwd", "credential"},
		find: assignments, check: looksSecret},
}

// spans returns the spans of text d masks: its pattern's matches (their
// "secret" group when it has one), or what find returns.
func (d *detector) spans(text string) [][2]int {
	if d.find != nil {
		return d.find(text)
	}
	re := d.pattern()
	group := re.SubexpIndex("secret")
	var out [][2]int
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if group > 0 && m[2*group] >= 0 {
			start, end = m[2*group], m[2*group+1]
		}
		out = append(out, [2]int{start, end})
	}
	return out
}

// credentialURL reports whether text may hold a connection string with
// a password, as the connection_string pattern reads one: "://", a user
// up to the first ':', a password up to the first '@', and a host, none
// of them empty nor holding a character the pattern's classes exclude
// (white space, quotes, angle brackets; '/' and '@' in the user and the
// password, ':' in the user). Every text the pattern matches passes, and
// the scan is much cheaper than the pattern, which starts at every
// letter: links are common in prose, links with passwords are not.
func credentialURL(text string) bool {
	for i := 0; ; i++ {
		k := strings.Index(text[i:], "://")
		if k < 0 {
			return false
		}
		i += k
		user := i + 3
		pass := runUntil(text, user, ":/@\"'<>") + 1
		if pass == user+1 || pass > len(text) || text[pass-1] != ':' {
			continue
		}
		host := runUntil(text, pass, "@/\"'<>") + 1
		if host == pass+1 || host > len(text) || text[host-1] != '@' {
			continue
		}
		if host < len(text) && runUntil(text, host, "\"'<>") > host {
			return true
		}
	}
}

// runUntil returns the end of the run of text from start that holds
// neither white space (as \s reads it: \t \n \f \r and the space) nor
// a byte of stop.
func runUntil(text string, start int, stop string) int {
	i := start
	for i < len(text) {
		switch c := text[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r':
			return i
		case strings.IndexByte(stop, c) >= 0:
			return i
		}
		i++
	}
	return i
}

// secretNames are the parts of a key name that say its value is secret.
var secretNames = []string{"apikey", "api_key", "api-key", "secret", "token", "password", "passwd", "passphrase", "pwd", "credential", "authkey", "auth_key", "access_key", "accesskey", "private_key", "privatekey"}

// assignments finds the values assigned to secret-sounding names:
// NAME=value, NAME: value, NAME := value, "name": "value", with the name
// containing one of secretNames (API_KEY, db_password, "clientSecret").
// It scans once for '=' and ':' rather than running a regular
// expression: a text of code is full of both.
func assignments(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '=' && c != ':' {
			continue
		}
		next := byte(0)
		if i+1 < len(text) {
			next = text[i+1]
		}
		prev := byte(0)
		if i > 0 {
			prev = text[i-1]
		}
		if c == ':' && (next == '/' || next == '=' || next == ':') || c == '=' && (next == '=' || next == '>' || strings.IndexByte("=!<>+-*/", prev) >= 0 && prev != 0) {
			continue // a URL, ==, !=, <=, =>, +=, … (":=" is taken at its '=')
		}
		k := i
		if c == '=' && prev == ':' {
			k--
		}
		for k > 0 && (text[k-1] == ' ' || text[k-1] == '\t') {
			k--
		}
		if k > 0 && (text[k-1] == '"' || text[k-1] == '\'') {
			k--
		}
		end := k
		for k > 0 && isNameByte(text[k-1]) {
			k--
		}
		if end-k < 3 || !secretName(text[k:end]) {
			continue
		}
		v := i + 1
		for v < len(text) && (text[v] == ' ' || text[v] == '\t') {
			v++
		}
		if v < len(text) && (text[v] == '"' || text[v] == '\'' || text[v] == '`') {
			v++
		}
		ve := v
		for ve < len(text) && !isValueStop(text[ve]) {
			ve++
		}
		for ve > v && text[ve-1] == '.' {
			ve-- // the end of a sentence
		}
		if ve-v >= 8 {
			out = append(out, [2]int{v, ve})
		}
		i = ve - 1
	}
	return out
}

// isNameByte reports whether b can be part of a key name.
func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.'
}

// isValueStop reports whether b ends an assigned value.
func isValueStop(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';':
		return true
	}
	return false
}

// secretName reports whether a key name says its value is secret.
func secretName(name string) bool {
	lower := strings.ToLower(name)
	for _, s := range secretNames {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

// Redaction is the text that replaces a secret of kind.
func Redaction(kind string) string { return "[REDACTED:" + kind + "]" }

// Mask returns text with every secret replaced by [Redaction] of its
// kind, and what it found, in order. A secret equal to an entry of allow
// is left as it is (a bank's allow-list: a public test key, a sample
// token in documentation). Text without secrets comes back unchanged
// (the same string) with no findings.
func Mask(text string, allow []string) (string, []Finding) {
	if text == "" {
		return text, nil
	}
	run := detectorPrefilter().match(text)
	var found []Finding
	for i, d := range detectors {
		if run&(1<<i) == 0 || d.need != nil && !d.need(text) {
			continue
		}
		for _, span := range d.spans(text) {
			start, end := span[0], span[1]
			secret := text[start:end]
			if placeholder(secret) || d.check != nil && !d.check(secret) || allowed(secret, allow) {
				continue
			}
			found = append(found, Finding{Kind: d.kind, Start: start, End: end})
		}
	}
	if len(found) == 0 {
		return text, nil
	}
	found = disjoint(found)
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, f := range found {
		b.WriteString(text[last:f.Start])
		b.WriteString(Redaction(f.Kind))
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String(), found
}

// detectorPrefilter finds which detectors' prefilter words a text holds,
// built on first use.
var detectorPrefilter = sync.OnceValue(func() *prefilter {
	words := make([][]string, len(detectors))
	for i, d := range detectors {
		words[i] = d.prefilter
	}
	return newPrefilter(words)
})

// allowed reports whether secret is on the allow-list.
func allowed(secret string, allow []string) bool {
	for _, a := range allow {
		if a != "" && (secret == a || strings.Contains(secret, a) && len(a) >= 8) {
			return true
		}
	}
	return false
}

// disjoint sorts findings by start and drops those overlapping an
// earlier, longer one (a JWT inside a bearer header is masked once).
func disjoint(fs []Finding) []Finding {
	// Insertion sort: findings are few.
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && (fs[j].Start < fs[j-1].Start || fs[j].Start == fs[j-1].Start && fs[j].End > fs[j-1].End); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
	out := fs[:0]
	end := -1
	for _, f := range fs {
		if f.Start < end {
			continue
		}
		out = append(out, f)
		end = f.End
	}
	return out
}

// placeholder reports whether a secret-shaped string is a placeholder
// from documentation or sample code ("xoxb-your-slack-token",
// "<your-key>", "${TOKEN}", "sk-xxxxxxxxxxxxxxxxxxxx").
func placeholder(v string) bool {
	lv := strings.ToLower(v)
	for _, p := range []string{"<", "${", "{{", "xxxx", "****", "...", "changeme", "example", "placeholder", "your", "redacted", "dummy", "sample", "process.env", "os.environ", "getenv"} {
		if strings.Contains(lv, p) {
			return true
		}
	}
	return false
}

// looksSecret reports whether an assigned value reads as a secret rather
// than prose, code or a placeholder: at least 8 characters, no brackets
// or parentheses (an expression: request.form['password'],
// hash(password)), digits or symbols mixed with letters (an identifier
// such as hashed_password or my_api_key is not a secret), and, when
// longer than 12 characters, at least 3 bits of entropy per character.
func looksSecret(v string) bool {
	v = strings.TrimRight(v, ".")
	if len(v) < 8 || strings.ContainsAny(v, "()[]{}") {
		return false
	}
	switch strings.ToLower(v) {
	case "none", "null", "true", "false", "undefined":
		return false
	}
	var letters, marks int
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letters++
		case r == '_' || r == '.' || r == '-':
		default:
			marks++ // digits and other symbols
		}
	}
	if letters == 0 || marks == 0 {
		return false // a word, an identifier or a plain number
	}
	return len(v) <= 12 || entropy(v) >= 3
}

// entropy is the Shannon entropy of s in bits per character.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

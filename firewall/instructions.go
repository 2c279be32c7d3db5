package firewall

import (
	"regexp"
	"strings"
	"sync"
)

// instructionRules find text that reads as instructions to a model
// rather than information about the world: attempts to override the
// model's instructions, to change its role, to reveal its prompt or to
// act behind the user's back; chat-template role markers; and tool-call
// look-alikes. A fetched web page or a pasted document carrying these is
// prompt injection waiting for the next prompt it is recalled into.
var instructionRules = []instructionRule{
	{"override", []string{"ignore", "disregard", "forget", "override", "bypass"},
		lazy(`(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*(?:previous|prior|above|earlier|preceding|original|system|existing|safety)\s+(?:instructions?|prompts?|messages?|rules|directions|guidelines|context|constraints)`),
		newPieces("", "ignore", "disregard", "forget", "override", "bypass")},
	{"override", []string{"ignore your", "disregard your"},
		lazy(`(?i)\b(?:ignore|disregard)\s+your\s+(?:instructions|rules|guidelines|system\s+prompt|programming)`), nil},
	{"role", []string{"you are now", "from now on"},
		lazy(`(?i)\b(?:you\s+are\s+now\s+(?:dan\b|no\s+longer\b|(?:an?\s+|the\s+)?(?:unrestricted|unfiltered|jailbroken|evil|different|new)\s+(?:ai|assistant|model|chatbot|persona)\b|in\s+(?:developer|god|jailbreak|admin|debug|unrestricted)\s+mode\b)|from\s+now\s+on,?\s+you\s+(?:are|will|must|shall|should)\b)`), nil},
	{"prompt_leak", []string{"system prompt", "your instructions", "your prompt"},
		lazy(`(?i)\b(?:reveal|print|repeat|show|output|leak|disclose)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+prompt|initial\s+instructions|instructions|prompt)\b`), nil},
	{"new_instructions", []string{"new instructions", "system prompt:", "system override"},
		lazy(`(?i)(?:\bnew\s+instructions\s*:|\bsystem\s+prompt\s*:|\bsystem\s+override\b)`), nil},
	{"covert", []string{"tell the user", "user know", "user find out", "send ", "exfiltrate"},
		lazy(`(?i)\b(?:(?:do\s+not|don't|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|let(?:ting)?)\s+the\s+user|exfiltrate|send\s+(?:all\s+|the\s+|their\s+|your\s+)*(?:credentials|passwords?|api\s+keys?|secrets?|tokens?|cookies|private\s+keys?)\s+to)\b`),
		newPieces("'", "user", "exfiltrate", "send")},
	{"role_marker", []string{"<|", "[inst]", "<<sys>>", "<system>", "### system", "### instruction"},
		lazy(`(?i)(?:<\|(?:im_start|im_end|system|user|assistant|endoftext|start_header_id|eot_id)\|>|\[/?INST\]|<</?SYS>>|</?system>|^#{2,3}\s*(?:system|instruction)s?\s*:)`), nil},
	{"tool_call", []string{"<tool_call", "<function_call", "<invoke", "\"tool_calls\"", "\"function_call\""},
		lazy(`(?i)(?:<tool_call>|<function_calls?>|<invoke\s+name=|"tool_calls"\s*:\s*\[|"function_call"\s*:\s*\{)`), nil},
}

// instructionRule is one kind of instructions: a pattern, run on texts
// that hold one of its prefilter words (ignoring case), and on the parts
// of them pieces picks when set.
type instructionRule struct {
	kind      string
	prefilter []string
	pattern   func() *regexp.Regexp
	pieces    *pieces
}

// pieces says which parts of a text a rule's pattern can match in, for
// the rules whose patterns are made of letters and white space only (and
// inside's bytes): a text is cut at every other ASCII byte that is no
// word byte (a digit or '_' is one, for \b), and the pattern runs only on
// the pieces that hold one of need, ASCII case folded, or a byte outside
// ASCII (which may be a letter the pattern's case folding matches: 'ſ'
// for 's', the Kelvin sign for 'k'). A match never holds a cut byte, and
// \b reads a cut byte as it reads the start or the end of a text, so the
// matches are those of the whole text, found at a fraction of the cost:
// a pattern with no literal prefix tries every position of what it is
// given, and the texts that hold a prefilter word mostly hold it far from
// anything the pattern wants ("send" in code and prose, "forget").
type pieces struct {
	inside string
	words  func() *prefilter // need's, built on first use
}

// newPieces returns the pieces that hold one of need, cut at every ASCII
// byte but letters, digits, '_', white space and inside's.
func newPieces(inside string, need ...string) *pieces {
	return &pieces{inside: inside, words: sync.OnceValue(func() *prefilter { return newPrefilter([][]string{need}) })}
}

// find returns the matches of r's pattern in text, as
// FindAllStringIndex gives them.
func (r *instructionRule) find(text string) [][]int {
	if r.pieces == nil {
		return r.pattern().FindAllStringIndex(text, -1)
	}
	p := r.pieces
	var out [][]int
	start, wide := 0, false
	for i := 0; i <= len(text); i++ {
		if i < len(text) {
			c := text[i]
			if c >= 0x80 {
				wide = true
				continue
			}
			if !p.cuts(c) {
				continue
			}
		}
		if i > start && (wide || p.words().match(text[start:i]) != 0) {
			for _, m := range r.pattern().FindAllStringIndex(text[start:i], -1) {
				out = append(out, []int{start + m[0], start + m[1]})
			}
		}
		start, wide = i+1, false
	}
	return out
}

// cuts reports whether a text is cut at the ASCII byte c.
func (p *pieces) cuts(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		return false
	case c == ' ', c == '\t', c == '\n', c == '\f', c == '\r':
		return false // \s
	}
	return strings.IndexByte(p.inside, c) < 0
}

// instructionPrefilter finds which rules' prefilter words a text holds,
// built on first use.
var instructionPrefilter = sync.OnceValue(func() *prefilter {
	words := make([][]string, len(instructionRules))
	for i, r := range instructionRules {
		words[i] = r.prefilter
	}
	return newPrefilter(words)
})

// Instructions returns the spans of text that read as instructions to a
// model (prompt injection), each with its kind: "override", "role",
// "prompt_leak", "new_instructions", "covert", "role_marker",
// "tool_call". None means the text reads as information.
func Instructions(text string) []Finding {
	if text == "" {
		return nil
	}
	run := instructionPrefilter().match(text)
	var found []Finding
	for i, r := range instructionRules {
		if run&(1<<i) == 0 {
			continue
		}
		for _, m := range r.find(text) {
			found = append(found, Finding{Kind: r.kind, Start: m[0], End: m[1]})
		}
	}
	return disjoint(found)
}

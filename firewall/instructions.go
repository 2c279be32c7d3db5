package firewall

import (
	"regexp"
	"sync"
)

// instructionRules find text that reads as instructions to a model
// rather than information about the world: attempts to override the
// model's instructions, to change its role, to reveal its prompt or to
// act behind the user's back; chat-template role markers; and tool-call
// look-alikes. A fetched web page or a pasted document carrying these is
// prompt injection waiting for the next prompt it is recalled into.
var instructionRules = []struct {
	kind      string
	prefilter []string
	pattern   func() *regexp.Regexp
}{
	{"override", []string{"ignore", "disregard", "forget", "override", "bypass"},
		lazy(`(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*(?:previous|prior|above|earlier|preceding|original|system|existing|safety)\s+(?:instructions?|prompts?|messages?|rules|directions|guidelines|context|constraints)`)},
	{"override", []string{"ignore your", "disregard your"},
		lazy(`(?i)\b(?:ignore|disregard)\s+your\s+(?:instructions|rules|guidelines|system\s+prompt|programming)`)},
	{"role", []string{"you are now", "from now on"},
		lazy(`(?i)\b(?:you\s+are\s+now\s+(?:dan\b|no\s+longer\b|(?:an?\s+|the\s+)?(?:unrestricted|unfiltered|jailbroken|evil|different|new)\s+(?:ai|assistant|model|chatbot|persona)\b|in\s+(?:developer|god|jailbreak|admin|debug|unrestricted)\s+mode\b)|from\s+now\s+on,?\s+you\s+(?:are|will|must|shall|should)\b)`)},
	{"prompt_leak", []string{"system prompt", "your instructions", "your prompt"},
		lazy(`(?i)\b(?:reveal|print|repeat|show|output|leak|disclose)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+prompt|initial\s+instructions|instructions|prompt)\b`)},
	{"new_instructions", []string{"new instructions", "system prompt:", "system override"},
		lazy(`(?i)(?:\bnew\s+instructions\s*:|\bsystem\s+prompt\s*:|\bsystem\s+override\b)`)},
	{"covert", []string{"tell the user", "user know", "user find out", "send ", "exfiltrate"},
		lazy(`(?i)\b(?:(?:do\s+not|don't|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|let(?:ting)?)\s+the\s+user|exfiltrate|send\s+(?:all\s+|the\s+|their\s+|your\s+)*(?:credentials|passwords?|api\s+keys?|secrets?|tokens?|cookies|private\s+keys?)\s+to)\b`)},
	{"role_marker", []string{"<|", "[inst]", "<<sys>>", "<system>", "### system", "### instruction"},
		lazy(`(?i)(?:<\|(?:im_start|im_end|system|user|assistant|endoftext|start_header_id|eot_id)\|>|\[/?INST\]|<</?SYS>>|</?system>|^#{2,3}\s*(?:system|instruction)s?\s*:)`)},
	{"tool_call", []string{"<tool_call", "<function_call", "<invoke", "\"tool_calls\"", "\"function_call\""},
		lazy(`(?i)(?:<tool_call>|<function_calls?>|<invoke\s+name=|"tool_calls"\s*:\s*\[|"function_call"\s*:\s*\{)`)},
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
		for _, m := range r.pattern().FindAllStringIndex(text, -1) {
			found = append(found, Finding{Kind: r.kind, Start: m[0], End: m[1]})
		}
	}
	return disjoint(found)
}

package reflection

import (
	"fmt"
	"strings"
	"time"
)

// basePrompt is what every reflect's system prompt says first.
const basePrompt = `You answer a question from a long-term memory bank: what an agent has seen, heard and learned about its user and their world. You only know what the memories say.

Look things up before you answer. The tools:
- recall searches facts and the observations that summarise them; filters narrow it (kinds, categories, tags, an event-time range, as_of for what the bank knew at a moment).
- search_observations searches only observations: patterns and changes consolidated from many facts.
- about gives everything known about one entity: its facts and its relations.
- expand shows the raw source text a fact came from, when the fact is too terse.
- standing_answers lists the questions the bank keeps answered (what the user prefers, and the like) with their current answers.
Call several tools, or one several times with other words, when the question needs it: a question about two things needs both looked up. Each memory is shown as [id] text; a fact marked superseded, or a "previously:" line, is no longer true.

When you know the answer, call answer with it and the ids of the memories it rests on. If the memories do not hold the answer, say so plainly. Never invent a memory or an id.`

// traits are the disposition's three dimensions, each a sentence per
// level 1–5 (Hindsight's skepticism, literalism and empathy).
var traits = []struct {
	name   string
	levels [5]string
}{
	{"Skepticism", [5]string{
		"Take the memories at their word; one memory is enough to answer from.",
		"Trust the memories, but mention it when two of them disagree.",
		"Weigh the memories: prefer what several support, and mention contradictions.",
		"Doubt what only one memory says; point out contradictions and how sure you are.",
		"Trust nothing a single memory says without support: check for contradictions and superseded facts, say how sure you are, and say \"not known\" rather than guess.",
	}},
	{"Literalism", [5]string{
		"Read the question for its intent, not its exact words, and answer what the asker most likely wants to know.",
		"Read the question mostly for its intent.",
		"Balance the question's exact words with its evident intent.",
		"Answer the question as worded, and keep to what the memories say.",
		"Answer exactly and only what is asked, in the memories' own terms; do not infer beyond them.",
	}},
	{"Empathy", [5]string{
		"Be factual and brief; leave feelings out.",
		"Be factual, with a little warmth.",
		"Be factual and considerate of the person the memories are about.",
		"Be warm: mind how the person feels about what the memories say, and phrase hard facts gently.",
		"Put the person first: acknowledge their feelings and circumstances, and phrase every answer with care.",
	}},
}

// SystemPrompt is the system prompt of a reflect for persona p, dated
// now, or as of asOf when set. The disposition adds a sentence per trait
// set (1–5; 0 adds nothing), the mission and background a section each:
// they shape how the model reasons and answers, not what recall finds.
func SystemPrompt(p Persona, now, asOf time.Time) string {
	var b strings.Builder
	b.WriteString(basePrompt)
	if asOf.IsZero() {
		fmt.Fprintf(&b, "\n\nToday is %s.", now.UTC().Format("Monday, 2 January 2006"))
	} else {
		fmt.Fprintf(&b, "\n\nAnswer as of %s: from what the bank knew then, as if it were that day.", asOf.UTC().Format("Monday, 2 January 2006, 15:04 MST"))
	}
	if m := strings.TrimSpace(p.Mission); m != "" {
		b.WriteString("\n\nYour mission, which every answer serves:\n" + m)
	}
	if bg := strings.TrimSpace(p.Background); bg != "" {
		b.WriteString("\n\nBackground:\n" + bg)
	}
	var disp []string
	for i, v := range []int{p.Skepticism, p.Literalism, p.Empathy} {
		if v >= 1 && v <= 5 {
			disp = append(disp, fmt.Sprintf("- %s %d/5: %s", traits[i].name, v, traits[i].levels[v-1]))
		}
	}
	if len(disp) > 0 {
		b.WriteString("\n\nYour disposition:\n" + strings.Join(disp, "\n"))
	}
	return b.String()
}

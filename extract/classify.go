package extract

import (
	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// firstPerson are the words that make a fact the speaker's own
// experience.
var firstPerson = map[string]bool{
	"i": true, "i'm": true, "im": true, "i've": true, "ive": true, "i'd": true,
	"i'll": true, "me": true, "my": true, "mine": true, "myself": true, "we": true,
	"we're": true, "we've": true, "we'd": true, "we'll": true, "us": true,
	"our": true, "ours": true, "ourselves": true,
}

// kind is experience when the text speaks in the first person, world
// otherwise. "US" in capitals is the country, not "us".
func kind(toks []token) memory.FactKind {
	for _, t := range toks {
		if firstPerson[t.lower] && t.text != "US" {
			return memory.KindExperience
		}
	}
	return memory.KindWorld
}

// Category cue stems (lex.Stem of the words), as bits of cueStems: one
// lookup per word finds every set the word's stem is in.
const (
	cueContact uint8 = 1 << iota
	cueDecision
	cuePreference
	cueTechnical
	cueProject
	cueEvent
)

var cueStems = stemBits(map[uint8][]string{
	cueContact:    {"email", "phone", "contact", "address", "whatsapp", "cellphone"},
	cueDecision:   {"decided", "decision", "chose", "choose", "choosing", "resolved"},
	cuePreference: {"love", "loved", "prefer", "favorite", "favourite", "enjoy", "hate", "dislike", "adore", "fond"},
	cueTechnical: {"code", "coding", "bug", "api", "server", "database", "software", "programming",
		"python", "javascript", "golang", "deploy", "github", "computer", "laptop", "algorithm"},
	cueProject: {"project", "deadline", "milestone", "launch", "prototype", "startup", "roadmap"},
	cueEvent: {"wedding", "birthday", "party", "concert", "festival", "conference", "meeting",
		"trip", "race", "parade", "ceremony", "graduation", "vacation", "holiday", "funeral", "marathon"},
})

// likeSubjects make a following "like" the verb of a preference ("I
// like", "really like") rather than a preposition ("felt like").
var likeSubjects = map[string]bool{
	"i": true, "we": true, "you": true, "they": true, "he": true, "she": true,
	"really": true, "also": true, "dont": true, "don't": true, "doesn't": true,
	"doesnt": true, "still": true, "always": true, "would": true, "i'd": true,
}

// category is a keyword heuristic: the first that matches of contact,
// decision, event (the text has a date), preference, technical, project,
// event (an event word), else personal.
func category(toks []token, dated bool) memory.Category {
	var cues uint8
	like := false
	for i, t := range toks {
		cues |= cueStems[lex.Stem(t.key)]
		if cues&cueContact != 0 {
			return memory.CategoryContact // the first rule: the rest cannot change it
		}
		if (t.key == "like" || t.key == "likes") && i > 0 && likeSubjects[toks[i-1].lower] {
			like = true
		}
	}
	switch {
	case cues&cueContact != 0:
		return memory.CategoryContact
	case cues&cueDecision != 0:
		return memory.CategoryDecision
	case dated:
		return memory.CategoryEvent
	case like || cues&cuePreference != 0:
		return memory.CategoryPreference
	case cues&cueTechnical != 0:
		return memory.CategoryTechnical
	case cues&cueProject != 0:
		return memory.CategoryProject
	case cues&cueEvent != 0:
		return memory.CategoryEvent
	}
	return memory.CategoryPersonal
}

// stemBits maps the stem of each word of sets to the bits of the sets it
// is in.
func stemBits(sets map[uint8][]string) map[string]uint8 {
	m := map[string]uint8{}
	for bit, words := range sets {
		for _, w := range words {
			m[lex.Stem(w)] |= bit
		}
	}
	return m
}

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

// Category cue stems (lex.Stem of the words).
var (
	contactStems    = stemSet("email", "phone", "contact", "address", "whatsapp", "cellphone")
	decisionStems   = stemSet("decided", "decision", "chose", "choose", "choosing", "resolved")
	preferenceStems = stemSet("love", "loved", "prefer", "favorite", "favourite", "enjoy", "hate", "dislike", "adore", "fond")
	technicalStems  = stemSet("code", "coding", "bug", "api", "server", "database", "software", "programming",
		"python", "javascript", "golang", "deploy", "github", "computer", "laptop", "algorithm")
	projectStems = stemSet("project", "deadline", "milestone", "launch", "prototype", "startup", "roadmap")
	eventStems   = stemSet("wedding", "birthday", "party", "concert", "festival", "conference", "meeting",
		"trip", "race", "parade", "ceremony", "graduation", "vacation", "holiday", "funeral", "marathon")
)

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
	stems := make([]string, 0, len(toks))
	like := false
	for i, t := range toks {
		stems = append(stems, lex.Stem(t.key))
		if (t.key == "like" || t.key == "likes") && i > 0 && likeSubjects[toks[i-1].lower] {
			like = true
		}
	}
	has := func(set map[string]bool) bool {
		for _, s := range stems {
			if set[s] {
				return true
			}
		}
		return false
	}
	switch {
	case has(contactStems):
		return memory.CategoryContact
	case has(decisionStems):
		return memory.CategoryDecision
	case dated:
		return memory.CategoryEvent
	case like || has(preferenceStems):
		return memory.CategoryPreference
	case has(technicalStems):
		return memory.CategoryTechnical
	case has(projectStems):
		return memory.CategoryProject
	case has(eventStems):
		return memory.CategoryEvent
	}
	return memory.CategoryPersonal
}

func stemSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[lex.Stem(w)] = true
	}
	return m
}

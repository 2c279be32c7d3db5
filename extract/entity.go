package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// Confidences of the heuristic entity rules.
const (
	confSpeaker      = 1.0 // the speaker of the message: certain
	confSpeakerName  = 0.9 // a capitalised span that names a speaker
	confTitled       = 0.8 // "Dr. Lee": a title announces a person
	confGreeted      = 0.7 // "Hey Mel", "Thanks John": a greeting names a person
	confSpan         = 0.7 // a capitalised span inside a sentence, or of several words
	confAcronym      = 0.6 // an all-caps word: LGBTQ, NASA
	confInitialSpan  = 0.5 // one capitalised word opening a sentence
	minSuffixRuleLen = 6   // "Honestly", "Painting": see initialWordOK
)

// pronouns never name an entity, wherever they stand.
var pronouns = map[string]bool{
	"i": true, "i'm": true, "i've": true, "i'd": true, "i'll": true, "me": true,
	"my": true, "mine": true, "you": true, "you're": true, "your": true, "he": true,
	"him": true, "his": true, "she": true, "her": true, "it": true, "its": true,
	"it's": true, "we": true, "we're": true, "us": true, "our": true, "they": true,
	"them": true, "their": true,
}

// initialSkips are the interjections and adverbs that open chat
// sentences, often right before a name ("Wow Mel", "Sorry Jon"); they are
// dropped from the start of a span that opens a sentence, besides the
// stopwords.
var initialSkips = map[string]bool{
	"hey": true, "hi": true, "hello": true, "thanks": true, "thank": true, "yes": true,
	"yeah": true, "yep": true, "yup": true, "no": true, "nope": true, "nah": true,
	"oh": true, "wow": true, "woah": true, "whoa": true, "well": true, "ok": true,
	"okay": true, "alright": true, "sure": true, "congrats": true,
	"congratulations": true, "sorry": true, "please": true, "lol": true, "haha": true,
	"hehe": true, "absolutely": true, "definitely": true, "totally": true, "glad": true,
	"maybe": true, "perhaps": true, "probably": true, "indeed": true, "exactly": true,
	"agreed": true, "anyway": true, "btw": true, "omg": true, "aww": true, "aw": true,
	"yay": true, "ah": true, "hmm": true, "um": true, "ugh": true, "oops": true,
	"dear": true, "also": true, "plus": true, "still": true, "even": true,
	"cheers": true, "welcome": true, "bye": true, "let's": true, "lets": true,
	"that's": true, "what's": true, "there's": true, "here's": true,
}

// imperatives are the verbs that open the steps of instructions ("Use
// Certbot to…", "Ensure your…", "- Keep it short"): opening a sentence
// or following a colon, they are dropped from the start of a span like
// initialSkips, so that an assistant's how-to answer does not make each
// of its verbs an entity.
var imperatives = map[string]bool{
	"add": true, "apply": true, "avoid": true, "build": true, "calculate": true,
	"call": true, "check": true, "choose": true, "click": true, "configure": true,
	"consider": true, "continue": true, "create": true, "customize": true,
	"define": true, "deploy": true, "enable": true, "ensure": true,
	"explore": true, "find": true, "focus": true, "follow": true, "go": true,
	"handle": true, "identify": true, "implement": true, "import": true,
	"include": true, "install": true, "keep": true, "let": true, "make": true,
	"monitor": true, "navigate": true, "note": true, "obtain": true, "open": true,
	"optimize": true, "plan": true, "practice": true, "prepare": true,
	"prioritize": true, "provide": true, "read": true, "remember": true,
	"remove": true, "replace": true, "review": true, "run": true, "save": true,
	"schedule": true, "select": true, "set": true, "share": true,
	"specify": true, "start": true, "stay": true, "store": true, "take": true,
	"test": true, "track": true, "try": true, "update": true, "upload": true,
	"use": true, "validate": true, "verify": true, "write": true,
}

// greetings announce the name of the person addressed: "Hey Mel!".
var greetings = map[string]bool{
	"hey": true, "hi": true, "hello": true, "thanks": true, "thank": true,
	"dear": true, "congrats": true, "congratulations": true, "bye": true,
	"morning": true, "evening": true, "welcome": true, "cheers": true,
}

// connectors may join the capitalised words of one name: "Bank of
// America", "Vincent van Gogh", "Lord of the Rings".
var connectors = map[string]bool{
	"of": true, "the": true, "de": true, "van": true, "von": true, "der": true,
	"den": true, "da": true, "di": true, "du": true, "la": true, "le": true,
	"del": true, "des": true, "y": true,
}

// chatAcronyms are all-caps words that name nothing.
var chatAcronyms = map[string]bool{
	"ok": true, "lol": true, "omg": true, "btw": true, "imo": true, "imho": true,
	"idk": true, "tbh": true, "fyi": true, "asap": true, "am": true, "pm": true,
	"ps": true, "rofl": true, "lmao": true, "brb": true, "ttyl": true, "thx": true,
	"np": true, "dm": true, "aka": true, "etc": true, "diy": true,
}

// entityContext is what entity detection knows about the whole input.
type entityContext struct {
	// speakers holds the normalised names of the input's speakers and
	// their first names; firstNames the first names alone.
	speakers   map[string]bool
	firstNames []string
	// capSeen holds the words (as token.key) the input writes
	// capitalised inside a sentence of prose (not in code, a heading or a
	// label, nor right after a colon): a capitalised word opening a
	// sentence, or standing in a heading or label, is taken for a name
	// only if the input also capitalises it there.
	capSeen map[string]bool
	// lowerSeen holds the words the input writes in lower case outside
	// code: common words ("use", "final", "name"), which a capital at the
	// start of a sentence or in a heading does not make a name.
	lowerSeen map[string]bool
}

// newEntityContext returns the context of an input with the given
// speakers and tokenised texts.
func newEntityContext(speakers []string, texts [][]token) *entityContext {
	c := &entityContext{speakers: map[string]bool{}, capSeen: map[string]bool{}, lowerSeen: map[string]bool{}}
	for _, n := range speakers {
		norm := memory.NormalizeName(n)
		if norm == "" || c.speakers[norm] {
			continue
		}
		c.speakers[norm] = true
		first := firstWord(norm)
		// A role written in lower case ("user", "assistant") names no
		// one: "Use" is not its nickname.
		if isCapitalised(strings.TrimSpace(n)) && !slices.Contains(c.firstNames, first) {
			c.speakers[first] = true
			c.firstNames = append(c.firstNames, first)
		}
	}
	for _, toks := range texts {
		for _, t := range toks {
			switch {
			case t.code:
			case !isCapitalised(t.text):
				if !isDigits(t.key) {
					c.lowerSeen[t.key] = true
				}
			case !t.initial && !t.label && !opensClause(t):
				c.capSeen[t.key] = true
			}
		}
	}
	return c
}

// entities returns the entities named in toks, one per normalised name
// (the first spelling, the highest confidence, and the best-known type: a
// person or place mention upgrades a thing), in order of appearance,
// after the speaker's.
//
// The rules are cheap and documented so that their mistakes are
// predictable:
//   - the speaker is a person, with confidence 1;
//   - a span of capitalised words (joined by single spaces, hyphens, or
//     the period of a title or initial: "Dr. J. K. Rowling"; possibly
//     through connectors such as "of" or "van") is an entity, cut at
//     possessives ("Mel's" gives "Mel"), months, weekdays and pronouns;
//     leading stopwords, chat openers ("Hey", "Thanks", "Wow") and titles
//     are dropped from it, and so is any word opening a sentence right
//     before a speaker's name ("Woah Joanna");
//   - a single capitalised word opening a sentence (or following a colon)
//     counts only if it names a speaker, follows a greeting ("Hey Mel!"),
//     or is capitalised elsewhere in the input inside a sentence and never
//     written in lower case — and is not a word ending in -ly, -ing or -ed,
//     nor an imperative verb ("Use", "Ensure");
//   - a span opening a sentence loses its first word when that is an
//     imperative verb or a common word (written in lower case elsewhere in
//     the input, never capitalised inside a sentence): "Use Certbot" gives
//     "Certbot";
//   - Markdown code (fenced blocks, `spans`) names nothing; in a heading,
//     a table row, a [bracketed] placeholder or a bold label opening a
//     line, where every word is capitalised, a word counts only as it
//     would opening a sentence (acronyms and speakers' names always do);
//   - an all-caps word of two letters or more (LGBTQ, NASA) is an entity,
//     unless it is chat shorthand (LOL, OMG) or a stopword, or the text is
//     shouted (see isShouted);
//   - a span is a person when it names a speaker, starts with a speaker's
//     name, is a nickname of one (a prefix of three letters or more: "Mel"
//     for Melanie; a role written in lower case such as "user" has none),
//     follows a title (Mr., Dr.) or a greeting; a place when
//     it follows "in"; a thing otherwise.
func (c *entityContext) entities(toks []token, speaker string) []Entity {
	var out []Entity
	seen := map[string]int{} // normalised name → index in out
	add := func(e Entity) {
		norm := memory.NormalizeName(e.Name)
		if norm == "" {
			return
		}
		if i, ok := seen[norm]; ok {
			out[i].Mentions++
			out[i].Confidence = max(out[i].Confidence, e.Confidence)
			if out[i].Type == memory.EntityThing {
				out[i].Type = e.Type
			}
			return
		}
		seen[norm] = len(out)
		e.Mentions = 1
		out = append(out, e)
	}
	if speaker != "" {
		add(Entity{Name: speaker, Type: memory.EntityPerson, Confidence: confSpeaker})
	}
	shouted := isShouted(toks)
	for i := 0; i < len(toks); {
		if !c.spanWord(toks[i]) {
			i++
			continue
		}
		// Grow the span [i, j].
		j := i
		for !possessive(toks[j].text) && j+1 < len(toks) {
			gap := toks[j+1].before
			if (onlySpace(gap) || gap == "-" || (gap == ". " || gap == ".") && abbreviated(toks[j])) && c.spanWord(toks[j+1]) {
				j++
				continue
			}
			// One or two connectors, then a capitalised word.
			k := j + 1
			for k < len(toks) && k-j <= 2 && connectors[toks[k].lower] && !isCapitalised(toks[k].text) && onlySpace(toks[k].before) {
				k++
			}
			if k > j+1 && k < len(toks) && onlySpace(toks[k].before) && c.spanWord(toks[k]) && !isAcronym(toks[k].text) {
				j = k
				continue
			}
			break
		}
		c.span(toks, i, j, shouted, add)
		i = j + 1
	}
	return out
}

// span turns the capitalised words toks[i..j] into entities.
func (c *entityContext) span(toks []token, i, j int, shouted bool, add func(Entity)) {
	// Drop leading openers, stopwords and titles: "Hey Mel", "The
	// Beatles", "Dr. Lee", "Woah Joanna".
	titled, greeted := false, false
loop:
	for i <= j {
		t := toks[i]
		b := base(t)
		switch {
		case titles[t.key]:
			titled = true
		case i < j && abbreviated(t), isAcronym(t.text) && !lex.IsStopword(b):
			break loop // "J. K. Rowling", "LGBTQ"
		case lex.IsStopword(b) || t.initial && initialSkips[b]:
			greeted = greetings[b]
		case i < j && (t.initial || opensClause(t)) && (imperatives[b] || c.common(t)):
			// "Use Certbot", "Ensure Flask": a verb or common word opening
			// a sentence.
			greeted = greetings[b]
		case i < j && t.initial && !c.speakerName(t) && c.speakerName(toks[i+1]):
			// An opener before a speaker's name: "Woah Joanna".
		default:
			break loop
		}
		i++
	}
	if i > j {
		return
	}
	first := toks[i]
	name := first.text
	if j > i {
		name = joinSpan(toks, i, j)
	}
	name = trimPossessive(name)
	norm := memory.NormalizeName(name)
	single := i == j
	switch {
	case c.speakers[norm] || c.speakers[firstWord(norm)]:
		add(Entity{Name: name, Type: memory.EntityPerson, Confidence: confSpeakerName})
	case single && c.nickname(norm):
		add(Entity{Name: name, Type: memory.EntityPerson, Confidence: confGreeted})
	case single && isAcronym(first.text):
		if shouted || lex.IsStopword(first.key) || chatAcronyms[first.key] {
			return
		}
		add(Entity{Name: name, Type: memory.EntityThing, Confidence: confAcronym})
	case shouted:
		return
	case titled || i > 0 && titles[toks[i-1].key]:
		add(Entity{Name: name, Type: memory.EntityPerson, Confidence: confTitled})
	case single && greeted:
		add(Entity{Name: name, Type: memory.EntityPerson, Confidence: confGreeted})
	case single && (first.initial || first.label || opensClause(first)):
		if !c.capSeen[first.key] || c.lowerSeen[first.key] || !initialWordOK(first) {
			return
		}
		add(Entity{Name: name, Type: c.kind(toks, i), Confidence: confInitialSpan})
	default:
		add(Entity{Name: name, Type: c.kind(toks, i), Confidence: confSpan})
	}
}

// speakerName reports whether t is a speaker's name or nickname.
func (c *entityContext) speakerName(t token) bool {
	norm := memory.NormalizeName(trimPossessive(t.text))
	return c.speakers[norm] || c.nickname(norm)
}

// nickname reports whether the one-word name norm is a prefix of three
// letters or more of a speaker's first name ("mel" for "melanie").
func (c *entityContext) nickname(norm string) bool {
	if utf8.RuneCountInString(norm) < 3 || strings.IndexByte(norm, ' ') >= 0 {
		return false
	}
	for _, f := range c.firstNames {
		if len(f) > len(norm) && strings.HasPrefix(f, norm) {
			return true
		}
	}
	return false
}

// kind types a span that names no speaker: a place after "in", else a
// thing.
func (c *entityContext) kind(toks []token, i int) memory.EntityType {
	if i > 0 && toks[i-1].key == "in" && onlySpace(toks[i].before) {
		return memory.EntityPlace
	}
	return memory.EntityThing
}

// spanWord reports whether t can be part of a name: a spanWord outside
// code and, in a heading or label (whose words are all capitalised), one
// the input capitalises in prose too, or an acronym, or a speaker's name.
func (c *entityContext) spanWord(t token) bool {
	if t.code || !spanWord(t) {
		return false
	}
	return !t.label || c.capSeen[t.key] && !c.lowerSeen[t.key] || isAcronym(t.text) || c.speakerName(t)
}

// common reports whether the input writes t's word in lower case and
// never capitalised inside a sentence: a common word, not part of a name.
func (c *entityContext) common(t token) bool {
	return c.lowerSeen[t.key] && !c.capSeen[t.key]
}

// opensClause reports whether t follows a colon ("Step 2: Ensure…",
// "Note: Use…"), where a capitalised word opens a clause as it opens a
// sentence.
func opensClause(t token) bool {
	return strings.HasSuffix(strings.TrimRight(t.before, " \t*_"), ":")
}

// spanWord reports whether t can be part of a name: capitalised or all
// caps, and not a pronoun, month or weekday.
func spanWord(t token) bool {
	if !isCapitalised(t.text) {
		return false
	}
	if pronouns[t.lower] || pronouns[base(t)] {
		return false
	}
	if _, ok := monthNames[t.key]; ok {
		return false
	}
	if _, ok := weekdayNames[t.key]; ok {
		return false
	}
	return !weekdayAbbrevs[t.key]
}

// weekdayAbbrevs break names like weekdays do ("Fri").
var weekdayAbbrevs = map[string]bool{
	"mon": true, "tue": true, "tues": true, "wed": true, "thu": true, "thur": true,
	"thurs": true, "fri": true, "sat": true, "sun": true,
}

// initialWordOK reports whether a single capitalised word opening a
// sentence may be a name: not a stopword, a chat opener or a word ending
// in -ly, -ing or -ed.
func initialWordOK(t token) bool {
	k := t.key
	if b := base(t); lex.IsStopword(b) || initialSkips[b] || initialSkips[k] || imperatives[b] {
		return false
	}
	if utf8.RuneCountInString(k) >= minSuffixRuleLen &&
		(strings.HasSuffix(k, "ly") || strings.HasSuffix(k, "ing") || strings.HasSuffix(k, "ed")) {
		return false
	}
	return true
}

// joinSpan returns the text of toks[i..j] with their separators, white
// space folded to one space.
func joinSpan(toks []token, i, j int) string {
	var b strings.Builder
	b.WriteString(toks[i].text)
	for k := i + 1; k <= j; k++ {
		if onlySpace(toks[k].before) {
			b.WriteByte(' ')
		} else {
			b.WriteString(toks[k].before)
		}
		b.WriteString(toks[k].text)
	}
	return b.String()
}

// abbreviated reports whether a period after t abbreviates it inside a
// name: a title ("Dr.") or an initial ("J.").
func abbreviated(t token) bool {
	return titles[t.key] || utf8.RuneCountInString(t.text) == 1 && isCapitalised(t.text)
}

func possessive(s string) bool {
	return strings.HasSuffix(s, "'s") || strings.HasSuffix(s, "’s")
}

func trimPossessive(s string) string {
	if strings.HasSuffix(s, "'s") {
		return s[:len(s)-2]
	}
	if strings.HasSuffix(s, "’s") {
		return s[:len(s)-len("’s")]
	}
	return s
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// isAcronym reports whether s has at least two letters, all upper case.
func isAcronym(s string) bool {
	letters := 0
	for _, r := range s {
		switch {
		case unicode.IsLower(r):
			return false
		case unicode.IsLetter(r):
			letters++
		}
	}
	return letters >= 2
}

// isShouted reports whether a text is written in capitals ("I LOVE THIS
// SO MUCH"): it has two all-caps stopwords or more, which acronyms never
// are.
func isShouted(toks []token) bool {
	n := 0
	for _, t := range toks {
		if isAcronym(t.text) && lex.IsStopword(t.key) && !chatAcronyms[t.key] {
			if n++; n == 2 {
				return true
			}
		}
	}
	return false
}

// base returns the lower-cased word of t without a contraction or
// possessive ending: "how" for "How's", "they" for "They'll".
func base(t token) string {
	if i := strings.IndexByte(t.lower, '\''); i > 0 {
		return t.lower[:i]
	}
	return t.key
}

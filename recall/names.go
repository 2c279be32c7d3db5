package recall

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// mentions finds the entities the query names (DESIGN §5 step 1), for
// the analysis and the graph strategy: a.entities and their names in
// a.Entities.
func (p *Pipeline) mentions(ctx context.Context, q memory.Query, a *analysis) error {
	ents, err := p.Store.EntitiesByName(ctx, q.BankID, nameCandidates(a.words))
	if err != nil {
		return fmt.Errorf("entity lookup: %w", err)
	}
	a.entities = ents
	for _, e := range ents {
		a.Entities = append(a.Entities, e.Name)
	}
	return nil
}

// nameCandidates are the word n-grams (n ≤ 3) of a query that could name
// an entity, normalised as memory.NormalizeName does.
func nameCandidates(words []string) []string {
	var out []string
	for n := 1; n <= 3; n++ {
		for i := 0; i+n <= len(words); i++ {
			if n == 1 && lex.IsStopword(words[i]) {
				continue
			}
			out = append(out, strings.Join(words[i:i+n], " "))
		}
	}
	return out
}

// speakerNames are the names a query could call a speaker by: its word
// n-grams (n ≤ 3) normalised as memory.NormalizeName does, with
// possessives dropped ("Caroline's" names Caroline), and UserSpeaker when
// the query speaks in the first person ("I", "me", "my"): whoever asks
// memory about "my sprint" is the user of the conversations it holds. In
// a bank without a speaker of that name (people talking to each other,
// named) the name matches nothing and changes nothing.
func speakerNames(text string) map[string]bool {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	})
	for i, f := range fields {
		f = strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s")
		fields[i] = strings.Trim(f, "'’")
	}
	out := map[string]bool{}
	words := lex.Words(strings.Join(fields, " "))
	for _, n := range nameCandidates(words) {
		out[n] = true
	}
	for _, w := range words {
		if firstPerson[w] {
			out[UserSpeaker] = true
		}
	}
	return out
}

// theUser completes names, the speakers a query names (speakerNames),
// with the user of a conversation with an assistant whose user has a
// name of their own: when the query speaks in the first person
// (UserSpeaker is named), no fact of facts is said by "user" and their
// speakers are "assistant" (memory.RoleAssistant) and one other, that
// other is the asker. With several others (a group talking to an
// assistant) or no assistant, who "I" is stays unknown and names is
// returned as it is. facts are the context strategy's candidates: the
// speakers of the turns the query matched, so no store read.
func theUser(names map[string]bool, facts map[string]*memory.Fact) map[string]bool {
	if !names[UserSpeaker] {
		return names
	}
	assistant, other := false, ""
	for _, f := range facts {
		switch s := memory.NormalizeName(f.Speaker); s {
		case UserSpeaker:
			return names
		case string(memory.RoleAssistant):
			assistant = true
		case "", other:
		default:
			if other != "" {
				return names // more than one speaker besides the assistant
			}
			other = s
		}
	}
	if assistant && other != "" {
		names[other] = true
	}
	return names
}

// UserSpeaker is the speaker name, normalised, of the user in a
// conversation between a user and an assistant (memory.RoleUser): the
// person a query's "I", "me" and "my" refer to.
const UserSpeaker = "user"

// firstPerson are the words (as lex.Words gives them) by which a query's
// asker names themself. "I'd" and "I'll" are left out: as lex.Words
// gives them ("id", "ill") they are also other words.
var firstPerson = map[string]bool{"i": true, "me": true, "my": true, "mine": true, "myself": true,
	"im": true, "ive": true}

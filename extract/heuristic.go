package extract

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

// Heuristic is the built-in extractor: no LLM, no network. Each message
// of a conversation (or each sentence of plain text) becomes one verbatim
// fact; dates are resolved with ResolveTimeRange and entities found by
// capitalisation rules (see the entities rules on Extract).
//
// A Heuristic is safe for concurrent use. Its zero value is not ready;
// create one with NewHeuristic.
type Heuristic struct {
	// Now is the clock used when neither the input nor a message has a
	// time. NewHeuristic sets it to time.Now.
	Now func() time.Time
}

// NewHeuristic returns a Heuristic using the system clock.
func NewHeuristic() *Heuristic {
	return &Heuristic{Now: time.Now}
}

// unit is one fact to be: a message, or a sentence of plain text.
type unit struct {
	text      string
	speaker   string
	sourceRef string
	chunk     int
	at        time.Time
	toks      []token
}

// Extract extracts chunks and facts from in.
//
// For Messages, every message with text gives one chunk and one fact: its
// text trimmed, its speaker (in.Speaker when the message has none), its
// ID as SourceRef and its Time as MentionedAt (in.At when zero). For
// plain Text, every paragraph (blank-line separated) gives a chunk and
// every sentence a fact pointing at its paragraph; sentences without a
// letter or digit are dropped unless the paragraph has nothing else.
//
// Every fact has Confidence VerbatimConfidence, Importance
// DefaultImportance and Sensitivity open. OccurredStart and OccurredEnd
// are the period named by the first date expression of the text (see
// ResolveTimeRange), or else OccurredStart is MentionedAt and OccurredEnd
// zero. Kind is experience for first-person text ("I", "we", "my"…),
// world otherwise. Category is a keyword heuristic: contact, decision,
// event (a date is named), preference (love, prefer, favorite, "I
// like"…), technical, project, event (wedding, concert, trip…), else
// personal. Entities are the speaker and the capitalised names and
// acronyms of the text, typed person (a speaker's name, or after Mr./Dr.),
// place (after "in") or thing.
//
// Extract fails with an EINVALID *memory.Error when there is nothing to
// remember (no text, or no message with text), when both Text and
// Messages are set, when the content is over memory.MaxContentBytes, or
// when any text, speaker or message ID is not valid UTF-8. It returns
// ctx's error if ctx is done before it finishes.
func (h *Heuristic) Extract(ctx context.Context, in Input) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := validate(in); err != nil {
		return nil, err
	}
	at := in.At
	if at.IsZero() {
		at = h.now()
	}
	res := &Result{}
	var units []unit
	if len(in.Messages) > 0 {
		for _, m := range in.Messages {
			text := strings.TrimSpace(m.Text)
			if text == "" {
				continue
			}
			u := unit{text: text, speaker: m.Speaker, sourceRef: m.ID, chunk: len(res.Chunks), at: m.Time}
			if u.speaker == "" {
				u.speaker = in.Speaker
			}
			if u.at.IsZero() {
				u.at = at
			}
			res.Chunks = append(res.Chunks, text)
			units = append(units, u)
		}
		if len(units) == 0 {
			return nil, memory.Errorf(memory.EINVALID, "nothing to remember: no message has text")
		}
	} else {
		for _, p := range paragraphs(in.Text) {
			chunk := len(res.Chunks)
			res.Chunks = append(res.Chunks, p)
			n := len(units)
			for _, s := range sentences(p) {
				if hasWord(s) {
					units = append(units, unit{text: s, speaker: in.Speaker, chunk: chunk, at: at})
				}
			}
			if len(units) == n { // only ":)" or "..." here: keep it whole
				units = append(units, unit{text: p, speaker: in.Speaker, chunk: chunk, at: at})
			}
		}
		if len(units) == 0 {
			return nil, memory.Errorf(memory.EINVALID, "nothing to remember: text is empty")
		}
	}

	// Input-wide context for entities: the speakers, and the words
	// capitalised inside sentences.
	names := []string{in.Speaker}
	for _, m := range in.Messages {
		names = append(names, m.Speaker)
	}
	texts := make([][]token, len(units))
	for i := range units {
		units[i].toks = tokenize(units[i].text)
		markMarkdown(units[i].text, units[i].toks)
		texts[i] = units[i].toks
	}
	ec := newEntityContext(names, texts)

	res.Facts = make([]Fact, 0, len(units))
	for i := range units {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		u := &units[i]
		f := Fact{
			Text:        u.text,
			Speaker:     u.speaker,
			SourceRef:   u.sourceRef,
			Chunk:       u.chunk,
			Kind:        kind(u.toks),
			Confidence:  VerbatimConfidence,
			Importance:  DefaultImportance,
			Sensitivity: memory.SensitivityOpen,
			MentionedAt: u.at,
			Entities:    ec.entities(u.toks, u.speaker),
		}
		tr, dated := findDate(u.text, u.toks, u.at)
		if dated {
			f.OccurredStart, f.OccurredEnd = tr.start, tr.end
		} else {
			f.OccurredStart = u.at
		}
		f.Category = category(u.toks, dated)
		res.Facts = append(res.Facts, f)
	}
	return res, nil
}

func (h *Heuristic) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// validate checks what Extract refuses.
func validate(in Input) error {
	if in.Text != "" && len(in.Messages) > 0 {
		return memory.Errorf(memory.EINVALID, "give either text or messages, not both")
	}
	if !utf8.ValidString(in.Text) {
		return memory.Errorf(memory.EINVALID, "text is not valid UTF-8")
	}
	if !utf8.ValidString(in.Speaker) {
		return memory.Errorf(memory.EINVALID, "speaker is not valid UTF-8")
	}
	size := len(in.Text) + len(in.Speaker)
	for i, m := range in.Messages {
		switch {
		case !utf8.ValidString(m.Text):
			return memory.Errorf(memory.EINVALID, "message %d: text is not valid UTF-8", i+1)
		case !utf8.ValidString(m.Speaker):
			return memory.Errorf(memory.EINVALID, "message %d: speaker is not valid UTF-8", i+1)
		case !utf8.ValidString(m.ID):
			return memory.Errorf(memory.EINVALID, "message %d: id is not valid UTF-8", i+1)
		}
		size += len(m.Text) + len(m.Speaker) + len(m.ID)
	}
	if size > memory.MaxContentBytes {
		return memory.Errorf(memory.EINVALID, "content is %d bytes, over the limit of %d", size, memory.MaxContentBytes)
	}
	if len(in.Messages) == 0 && strings.TrimSpace(in.Text) == "" {
		return memory.Errorf(memory.EINVALID, "nothing to remember: text is empty")
	}
	return nil
}

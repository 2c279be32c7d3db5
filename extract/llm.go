package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultChunkBytes bounds the content of one extraction call: longer
// items are split (between messages, or between paragraphs) and each part
// is one call.
const DefaultChunkBytes = 12 << 10

// Stage names of the LLM calls made here, as counted by provider.Guard.
const (
	StageExtract = "extract"
	StageJudge   = "conflicts"
)

// Gates are per-type minimum confidences (DESIGN §4 step 4, Annie's
// per-type gating): an entity of a gated type below its gate is dropped
// from the fact; a fact whose category is gated, below its gate, is
// dropped. Types and categories not listed use Default.
type Gates struct {
	Default  float64
	Entity   map[memory.EntityType]float64
	Category map[memory.Category]float64
}

// DefaultGates are the gates of DESIGN §4: promises and decisions 0.7;
// person, event, place and relationship 0.6; everything else 0.5.
func DefaultGates() Gates {
	return Gates{
		Default: 0.5,
		Entity: map[memory.EntityType]float64{
			memory.EntityPromise: 0.7, memory.EntityDecision: 0.7,
			memory.EntityPerson: 0.6, memory.EntityEvent: 0.6, memory.EntityPlace: 0.6, memory.EntityRelationship: 0.6,
		},
		Category: map[memory.Category]float64{
			memory.CategoryDecision: 0.7,
			memory.CategoryEvent:    0.6,
		},
	}
}

func (g Gates) entity(t memory.EntityType) float64 {
	if v, ok := g.Entity[t]; ok {
		return v
	}
	return g.Default
}

func (g Gates) category(c memory.Category) float64 {
	if v, ok := g.Category[c]; ok {
		return v
	}
	return g.Default
}

// LLM extracts facts with a language model: atomic, rewritten facts with
// kind, category, confidence, importance, sensitivity, speaker, evidence,
// event times, entities, relations and causal links, in one
// schema-constrained call per chunk (prompts.go).
//
// An LLM is safe for concurrent use. Create it with NewLLM; it does no
// retries of its own (wrap the model in a provider.Guard).
type LLM struct {
	Model memory.LLM
	// Gates drop low-confidence facts and entities (DefaultGates).
	Gates Gates
	// ChunkBytes bounds one call's content (DefaultChunkBytes).
	ChunkBytes int
	// Now is the clock used when the input has no time (time.Now).
	Now func() time.Time
}

// NewLLM returns an extractor over model with the default gates.
func NewLLM(model memory.LLM) *LLM {
	return &LLM{Model: model, Gates: DefaultGates(), ChunkBytes: DefaultChunkBytes, Now: time.Now}
}

// llmAnswer is the decoded extraction answer (extractSchema).
type llmAnswer struct {
	Facts []struct {
		Text          string  `json:"text"`
		Kind          string  `json:"kind"`
		Category      string  `json:"category"`
		Confidence    float64 `json:"confidence"`
		Importance    float64 `json:"importance"`
		Sensitivity   string  `json:"sensitivity"`
		Speaker       string  `json:"speaker"`
		Message       int     `json:"message"`
		Evidence      string  `json:"evidence"`
		OccurredStart string  `json:"occurred_start"`
		OccurredEnd   string  `json:"occurred_end"`
		Entities      []struct {
			Name       string  `json:"name"`
			Type       string  `json:"type"`
			Confidence float64 `json:"confidence"`
		} `json:"entities"`
		Relations []struct {
			Subject    string  `json:"subject"`
			Predicate  string  `json:"predicate"`
			Object     string  `json:"object"`
			Confidence float64 `json:"confidence"`
		} `json:"relations"`
		Causes []struct {
			Fact int    `json:"fact"`
			Kind string `json:"kind"`
		} `json:"causes"`
	} `json:"facts"`
}

// llmUnit is one message (or the plain text) as the model sees it.
type llmUnit struct {
	n       int // 1-based message number in the prompt; 0 for plain text
	text    string
	speaker string
	ref     string
	at      time.Time
}

// Extract implements the retain pipeline's Extractor. Each chunk is one
// call; the facts of all chunks come back in order, each pointing at its
// chunk. Facts and entities under their gates are dropped; entities are
// deduplicated per result by normalised name (see dedupEntities). It fails when a call fails or an
// answer is not valid against the schema (nothing is returned then), and
// with EINVALID when the content is invalid or the model found nothing to
// remember.
func (x *LLM) Extract(ctx context.Context, in Input) (*Result, error) {
	if err := validate(in); err != nil {
		return nil, err
	}
	at := in.At
	if at.IsZero() {
		at = x.now()
	}
	var units []llmUnit
	if len(in.Messages) > 0 {
		for i, m := range in.Messages {
			text := strings.TrimSpace(m.Text)
			if text == "" {
				continue
			}
			u := llmUnit{n: i + 1, text: text, speaker: m.Speaker, ref: m.ID, at: m.Time}
			if u.speaker == "" {
				u.speaker = in.Speaker
			}
			if u.at.IsZero() {
				u.at = at
			}
			units = append(units, u)
		}
	} else {
		for _, p := range paragraphs(in.Text) {
			units = append(units, llmUnit{text: p, speaker: in.Speaker, at: at})
		}
	}
	if len(units) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "nothing to remember: no text")
	}
	limit := x.ChunkBytes
	if limit <= 0 {
		limit = DefaultChunkBytes
	}
	res := &Result{}
	for start := 0; start < len(units); {
		end, size := start, 0
		for end < len(units) && (end == start || size+len(units[end].text) <= limit) {
			size += len(units[end].text)
			end++
		}
		if err := x.chunk(ctx, res, units[start:end], at); err != nil {
			return nil, err
		}
		start = end
	}
	if len(res.Facts) == 0 {
		return nil, memory.Errorf(memory.EINVALID, "nothing to remember: the model found no fact worth keeping")
	}
	dedupEntities(res.Facts)
	return res, nil
}

// chunk extracts the facts of one chunk into res.
func (x *LLM) chunk(ctx context.Context, res *Result, units []llmUnit, docAt time.Time) error {
	var raw, prompt strings.Builder
	fmt.Fprintf(&prompt, "Document time: %s\n\n", docAt.UTC().Format(time.RFC3339))
	for i, u := range units {
		if i > 0 {
			raw.WriteString("\n\n")
		}
		if u.n > 0 {
			speaker := u.speaker
			if speaker == "" {
				speaker = "unknown"
			}
			fmt.Fprintf(&raw, "%s: %s", speaker, u.text)
			fmt.Fprintf(&prompt, "[%d] (%s) %s: %s\n", u.n, u.at.UTC().Format("2006-01-02 15:04 Mon"), speaker, u.text)
		} else {
			raw.WriteString(u.text)
			prompt.WriteString(u.text)
			prompt.WriteString("\n")
		}
	}
	resp, err := x.Model.Chat(ctx, &memory.ChatRequest{
		Stage:    StageExtract,
		System:   extractSystem,
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: prompt.String()}},
		Schema:   &memory.Schema{Name: "extraction", Description: "facts extracted from the content", JSON: json.RawMessage(extractSchema)},
	})
	if err != nil {
		return fmt.Errorf("extract facts: %w", err)
	}
	var ans llmAnswer
	if err := json.Unmarshal(resp.JSON, &ans); err != nil {
		return memory.Errorf(memory.EINVALID, "extract facts: malformed answer: %v", err)
	}
	chunk := len(res.Chunks)
	res.Chunks = append(res.Chunks, raw.String())
	byMsg := map[int]*llmUnit{}
	for i := range units {
		byMsg[units[i].n] = &units[i]
	}
	kept := map[int]int{} // answer index → index in res.Facts
	for i, a := range ans.Facts {
		text := strings.TrimSpace(a.Text)
		cat := memory.Category(a.Category)
		a.Confidence, a.Importance = clamp01(a.Confidence), clamp01(a.Importance)
		if text == "" || a.Confidence < x.Gates.category(cat) {
			continue
		}
		u := byMsg[a.Message]
		if u == nil {
			u = &units[0]
			if a.Message != 0 || units[0].n != 0 {
				// An unknown message number: the chunk's last message is
				// the safest time and speaker.
				u = &units[len(units)-1]
			}
		}
		f := Fact{
			Text: text, Speaker: strings.TrimSpace(a.Speaker), SourceRef: u.ref, Chunk: chunk,
			Kind: memory.FactKind(a.Kind), Category: cat, Confidence: a.Confidence, Importance: a.Importance,
			Sensitivity: memory.Sensitivity(a.Sensitivity), Evidence: strings.TrimSpace(a.Evidence), MentionedAt: u.at,
		}
		if f.Speaker == "" {
			f.Speaker = u.speaker
		}
		f.OccurredStart, f.OccurredEnd = parseWhen(a.OccurredStart, a.OccurredEnd, u.at)
		if f.OccurredStart.IsZero() {
			f.OccurredStart = u.at
		}
		for _, e := range a.Entities {
			typ := memory.EntityType(e.Type)
			e.Confidence = clamp01(e.Confidence)
			if memory.NormalizeName(e.Name) == "" || e.Confidence < x.Gates.entity(typ) {
				continue
			}
			f.Entities = append(f.Entities, Entity{Name: strings.TrimSpace(e.Name), Type: typ, Confidence: e.Confidence})
		}
		for _, r := range a.Relations {
			p := Predicate(r.Predicate)
			r.Confidence = clamp01(r.Confidence)
			if p == "" || memory.NormalizeName(r.Subject) == "" || memory.NormalizeName(r.Object) == "" || r.Confidence < x.Gates.Default {
				continue
			}
			f.Relations = append(f.Relations, Relation{Subject: strings.TrimSpace(r.Subject), Predicate: p, Object: strings.TrimSpace(r.Object), Confidence: r.Confidence})
		}
		kept[i] = len(res.Facts)
		res.Facts = append(res.Facts, f)
	}
	// Causal links point at answer indexes; renumber them to the kept
	// facts and drop those to a gated or unknown fact.
	for i, a := range ans.Facts {
		from, ok := kept[i]
		if !ok {
			continue
		}
		for _, c := range a.Causes {
			to, ok := kept[c.Fact]
			if !ok || to == from {
				continue
			}
			res.Facts[from].Causes = append(res.Facts[from].Causes, Cause{Fact: to, Kind: memory.LinkKind(c.Kind)})
		}
	}
	return nil
}

// Version names the prompts and schemas the extractor uses
// (PromptVersion); retain records it in each document's metadata.
func (x *LLM) Version() string { return PromptVersion }

func (x *LLM) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}

var nonPredicate = regexp.MustCompile(`[^a-z0-9]+`)

// Predicate normalises a relation predicate to lower snake_case: "Works
// At" and "works-at" are both "works_at".
func Predicate(p string) string {
	return strings.Trim(nonPredicate.ReplaceAllString(strings.ToLower(p), "_"), "_")
}

// parseWhen resolves a fact's occurred start and end as the model gave
// them: ISO dates (day, month or year precision, or a full timestamp), or
// failing that any expression ResolveTimeRange understands, relative to
// ref. A date-only start with no end covers its whole day, month or year.
func parseWhen(start, end string, ref time.Time) (time.Time, time.Time) {
	s0, s1, ok := parseISO(start, ref)
	if !ok {
		return time.Time{}, time.Time{}
	}
	if e0, e1, ok := parseISO(end, ref); ok {
		if e1.IsZero() {
			e1 = e0 // a timestamp: the end itself
		}
		if e1.After(s0) {
			return s0, e1
		}
	}
	return s0, s1
}

// parseISO parses one time as the model gave it into a half-open range.
func parseISO(v string, ref time.Time) (time.Time, time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, time.Time{}, false
	}
	for _, l := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC(), time.Time{}, true
		}
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, t.AddDate(0, 0, 1), true
	}
	if t, err := time.Parse("2006-01", v); err == nil {
		return t, t.AddDate(0, 1, 0), true
	}
	if t, err := time.Parse("2006", v); err == nil {
		return t, t.AddDate(1, 0, 0), true
	}
	if s, e, ok := ResolveTimeRange(v, ref); ok {
		return s, e, true
	}
	return time.Time{}, time.Time{}, false
}

// dedupEntities gives every normalised name one entity across the facts,
// as one name is one entity of a bank (memory.EntityID): the mention
// given with the highest confidence (the first on a tie), its spelling
// and type. "Topic:Google" at 0.8 and "Organization:Google" at 0.9 are
// one Google, an organization.
func dedupEntities(facts []Fact) {
	best := map[string]Entity{} // by normalised name
	for _, f := range facts {
		for _, e := range f.Entities {
			norm := memory.NormalizeName(e.Name)
			if b, ok := best[norm]; !ok || e.Confidence > b.Confidence {
				best[norm] = e
			}
		}
	}
	for i := range facts {
		seen := map[string]bool{}
		out := facts[i].Entities[:0]
		for _, e := range facts[i].Entities {
			norm := memory.NormalizeName(e.Name)
			if seen[norm] {
				continue
			}
			seen[norm] = true
			out = append(out, best[norm])
		}
		facts[i].Entities = out
	}
}

// clamp01 bounds a model's score to [0, 1].
func clamp01(v float64) float64 { return min(max(v, 0), 1) }

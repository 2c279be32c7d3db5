package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-ai/mnemo/memory"
)

// LoCoMoCategory is a LoCoMo question category (PROTOCOL §3.1.3). Always
// report it by integer and by the protocol's name: third-party code labels
// the integers differently.
type LoCoMoCategory int

// LoCoMo question categories.
const (
	CategoryMultiHop    LoCoMoCategory = 1
	CategoryTemporal    LoCoMoCategory = 2
	CategoryOpenDomain  LoCoMoCategory = 3
	CategorySingleHop   LoCoMoCategory = 4
	CategoryAdversarial LoCoMoCategory = 5
)

// Evaluated reports whether questions of category c are scored: 1–4, not
// adversarial (PROTOCOL §3.1.5).
func (c LoCoMoCategory) Evaluated() bool {
	return c >= CategoryMultiHop && c <= CategorySingleHop
}

// String returns the protocol's name of c ("multi-hop", "temporal",
// "open-domain", "single-hop", "adversarial"), or its integer when c is
// none of these.
func (c LoCoMoCategory) String() string {
	switch c {
	case CategoryMultiHop:
		return "multi-hop"
	case CategoryTemporal:
		return "temporal"
	case CategoryOpenDomain:
		return "open-domain"
	case CategorySingleHop:
		return "single-hop"
	case CategoryAdversarial:
		return "adversarial"
	}
	return strconv.Itoa(int(c))
}

// LoCoMo is a LoCoMo dataset (locomo10.json or a split of it) read as
// PROTOCOL §3.1 says: one memory space per conversation, one memory per
// turn, one query per qa entry.
type LoCoMo struct {
	Conversations []*LoCoMoConversation
}

// LoCoMoConversation is one conversation: one memory space.
type LoCoMoConversation struct {
	ID string // sample_id, e.g. "conv-26"
	// Sessions are those with a non-empty turn list, ascending by N; a
	// session_<n>_date_time without a list is no session.
	Sessions []LoCoMoSession
	// Queries are the qa entries in file order, evaluated or not.
	Queries []LoCoMoQuery
	// Now is the latest session time: the query-time "now".
	Now time.Time
}

// LoCoMoSession is one session of a conversation.
type LoCoMoSession struct {
	N        int       // the n of session_<n>
	DateTime string    // session_<n>_date_time verbatim: "1:56 pm on 8 May, 2023"
	Time     time.Time // DateTime parsed; the data has no zone, so UTC
	Turns    []LoCoMoTurn
}

// LoCoMoTurn is one turn of a session: one memory.
type LoCoMoTurn struct {
	ID      string // "<sample_id>/<dia_id>", e.g. "conv-26/D1:3"
	DiaID   string // "D1:3"
	Session int    // n of the session
	Turn    int    // 1-based position in the session
	Speaker string
	Text    string
	Caption string // blip_caption of a shared image; "" when none
}

// LoCoMoQuery is one question with its normalised gold set. An engine may
// see only Question (and the conversation's Now); never Gold or Category.
type LoCoMoQuery struct {
	ID             string // "<sample_id>/q<i>", i 0-based
	ConversationID string
	Index          int // i
	Question       string
	Category       LoCoMoCategory
	// Gold is the normalised evidence (PROTOCOL §3.1.4) as memory ids, in
	// first-seen order, without repeats.
	Gold []string
	// Dropped are the evidence tokens normalisation dropped.
	Dropped []string
	// Evaluated says whether the query is scored: an evaluated category
	// and a non-empty Gold (PROTOCOL §3.1.5).
	Evaluated bool
}

// LoCoMoSource is the Source of every document [LoCoMoConversation.RetainRequests]
// makes.
const LoCoMoSource = "locomo"

// Memories returns the conversation's turns in ingestion order: sessions
// ascending, turns in list order.
func (c *LoCoMoConversation) Memories() []LoCoMoTurn {
	var out []LoCoMoTurn
	for _, s := range c.Sessions {
		out = append(out, s.Turns...)
	}
	return out
}

// RetainRequests returns the conversation's sessions as retain requests
// for bankID, in ingestion order: Source [LoCoMoSource], ItemID
// "<sample_id>/session_<n>", At the session time, and one message per
// turn with the turn's memory id as ID, its speaker, its text followed by
// " (image: <caption>)" when it shared an image, and the session time.
func (c *LoCoMoConversation) RetainRequests(bankID string) []memory.RetainRequest {
	reqs := make([]memory.RetainRequest, 0, len(c.Sessions))
	for _, s := range c.Sessions {
		msgs := make([]memory.Message, 0, len(s.Turns))
		for _, t := range s.Turns {
			text := t.Text
			if t.Caption != "" {
				text += " (image: " + t.Caption + ")"
			}
			msgs = append(msgs, memory.Message{ID: t.ID, Speaker: t.Speaker, Text: text, Time: s.Time})
		}
		reqs = append(reqs, memory.RetainRequest{
			BankID:   bankID,
			Source:   LoCoMoSource,
			ItemID:   fmt.Sprintf("%s/session_%d", c.ID, s.N),
			At:       s.Time,
			Messages: msgs,
		})
	}
	return reqs
}

// NumMemories returns the number of turns in the dataset.
func (d *LoCoMo) NumMemories() int {
	n := 0
	for _, c := range d.Conversations {
		for _, s := range c.Sessions {
			n += len(s.Turns)
		}
	}
	return n
}

// EvaluatedQueries returns the evaluated queries of every conversation, in
// file order.
func (d *LoCoMo) EvaluatedQueries() []*LoCoMoQuery {
	var out []*LoCoMoQuery
	for _, c := range d.Conversations {
		for i := range c.Queries {
			if c.Queries[i].Evaluated {
				out = append(out, &c.Queries[i])
			}
		}
	}
	return out
}

// LoadLoCoMo reads the LoCoMo file at path; see [ReadLoCoMo].
func LoadLoCoMo(path string) (*LoCoMo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load locomo: %w", err)
	}
	defer f.Close()
	d, err := ReadLoCoMo(f)
	if err != nil {
		return nil, fmt.Errorf("load locomo %s: %w", path, err)
	}
	return d, nil
}

// ReadLoCoMo reads a LoCoMo JSON document: a list of conversations with
// sample_id, conversation and qa. It fails on malformed JSON, a repeated
// sample_id, or a session whose date_time is missing or unparsable.
//
// The list is decoded one conversation at a time: only one conversation's
// raw JSON is held at once, never the whole file's. The conversations
// read are all held; ScanLoCoMo hands them over one at a time.
func ReadLoCoMo(r io.Reader) (*LoCoMo, error) {
	d := &LoCoMo{}
	err := ScanLoCoMo(r, func(c *LoCoMoConversation) error {
		d.Conversations = append(d.Conversations, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// ScanLoCoMo reads a LoCoMo JSON document as ReadLoCoMo does and calls fn
// with each conversation, in file order, as soon as it is read; only the
// conversation being read and the sample ids seen are held. An error from
// fn stops the scan and is returned as is; a malformed file fails where
// it goes wrong, after fn has seen the conversations before.
func ScanLoCoMo(r io.Reader, fn func(*LoCoMoConversation) error) error {
	type rawConversation struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string            `json:"question"`
			Category int               `json:"category"`
			Evidence []json.RawMessage `json:"evidence"`
		} `json:"qa"`
	}
	dec := json.NewDecoder(r)
	switch tok, err := dec.Token(); {
	case err != nil:
		return fmt.Errorf("decode locomo: %w", err)
	case tok != json.Delim('['):
		return fmt.Errorf("decode locomo: want a list of conversations, not %v", tokenKind(tok))
	}
	n := 0 // conversations read
	seen := make(map[string]bool)
	for dec.More() {
		var s rawConversation
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("decode locomo: conversation %d: %w", n+1, err)
		}
		if s.SampleID == "" {
			return fmt.Errorf("conversation %d: no sample_id", n)
		}
		if seen[s.SampleID] {
			return fmt.Errorf("conversation %s: sample_id repeated", s.SampleID)
		}
		seen[s.SampleID] = true
		c, err := readLoCoMoConversation(s.SampleID, s.Conversation)
		if err != nil {
			return fmt.Errorf("conversation %s: %w", s.SampleID, err)
		}
		valid := make(map[string]bool)
		for _, t := range c.Memories() {
			valid[t.DiaID] = true
		}
		for i, q := range s.QA {
			evidence := make([]string, len(q.Evidence))
			for j, e := range q.Evidence {
				evidence[j] = jsonString(e)
			}
			gold, dropped := NormalizeEvidence(evidence, valid)
			for j := range gold {
				gold[j] = s.SampleID + "/" + gold[j]
			}
			cat := LoCoMoCategory(q.Category)
			c.Queries = append(c.Queries, LoCoMoQuery{
				ID:             s.SampleID + "/q" + strconv.Itoa(i),
				ConversationID: s.SampleID,
				Index:          i,
				Question:       q.Question,
				Category:       cat,
				Gold:           gold,
				Dropped:        dropped,
				Evaluated:      len(gold) > 0 && cat.Evaluated(),
			})
		}
		n++
		if err := fn(c); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ]
		return fmt.Errorf("decode locomo: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("decode locomo: data after the list of conversations")
	}
	return nil
}

// tokenKind names a JSON token for an error message.
func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", tok)
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

var sessionKeyRE = regexp.MustCompile(`^session_(\d+)$`)

func readLoCoMoConversation(id string, conv map[string]json.RawMessage) (*LoCoMoConversation, error) {
	c := &LoCoMoConversation{ID: id}
	for key, val := range conv {
		m := sessionKeyRE.FindStringSubmatch(key)
		if m == nil || !isJSONArray(val) {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || key != "session_"+strconv.Itoa(n) {
			continue // "session_01" or an absurd n: not a session the protocol reads
		}
		var turns []struct {
			Speaker     string `json:"speaker"`
			DiaID       string `json:"dia_id"`
			Text        string `json:"text"`
			BlipCaption string `json:"blip_caption"`
		}
		if err := json.Unmarshal(val, &turns); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if len(turns) == 0 {
			continue
		}
		var dt string
		if err := json.Unmarshal(conv[key+"_date_time"], &dt); err != nil || dt == "" {
			return nil, fmt.Errorf("%s: no %s_date_time string", key, key)
		}
		at, err := ParseLoCoMoTime(dt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		s := LoCoMoSession{N: n, DateTime: dt, Time: at}
		for j, t := range turns {
			s.Turns = append(s.Turns, LoCoMoTurn{
				ID:      id + "/" + t.DiaID,
				DiaID:   t.DiaID,
				Session: n,
				Turn:    j + 1,
				Speaker: t.Speaker,
				Text:    t.Text,
				Caption: t.BlipCaption,
			})
		}
		c.Sessions = append(c.Sessions, s)
		if at.After(c.Now) {
			c.Now = at
		}
	}
	slices.SortFunc(c.Sessions, func(a, b LoCoMoSession) int { return a.N - b.N })
	return c, nil
}

// isJSONArray reports whether raw is a JSON array.
func isJSONArray(raw json.RawMessage) bool {
	b := bytes.TrimLeft(raw, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// jsonString returns a JSON string's value, or any other JSON value's
// text, as Python's str() of a number would give it.
func jsonString(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

var evidenceRE = regexp.MustCompile(`^D:?([0-9]+):([0-9]+)$`)

// NormalizeEvidence turns LoCoMo evidence strings into dia_ids as PROTOCOL
// §3.1.4 says: split each string on runs of ';', ',' and white space, keep
// the pieces matching D<a>:<b> or D:<a>:<b>, write them D<int(a)>:<int(b)>
// (leading zeros stripped), keep those in valid, and deduplicate.
// gold is in first-seen order; dropped lists the pieces left out, in
// order.
func NormalizeEvidence(evidence []string, valid map[string]bool) (gold, dropped []string) {
	seen := make(map[string]bool)
	for _, e := range evidence {
		for _, piece := range strings.FieldsFunc(e, isEvidenceSeparator) {
			m := evidenceRE.FindStringSubmatch(piece)
			if m == nil {
				dropped = append(dropped, piece)
				continue
			}
			id := "D" + trimZeros(m[1]) + ":" + trimZeros(m[2])
			switch {
			case !valid[id]:
				dropped = append(dropped, piece)
			case !seen[id]:
				seen[id] = true
				gold = append(gold, id)
			}
		}
	}
	return gold, dropped
}

// isEvidenceSeparator matches the reference's [;,\s]: Python's \s is
// Unicode white space, which adds the separators U+001C–U+001F to Go's
// unicode.IsSpace.
func isEvidenceSeparator(r rune) bool {
	return r == ';' || r == ',' || unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// trimZeros writes a decimal digit string as int() then str() would.
func trimZeros(digits string) string {
	if s := strings.TrimLeft(digits, "0"); s != "" {
		return s
	}
	return "0"
}

// locomoTimeRE is Python's strptime pattern for "%I:%M %p on %d %B, %Y":
// case-insensitive, a space in the format matching any run of white space.
var locomoTimeRE = regexp.MustCompile(`(?i)^(1[0-2]|0[1-9]|[1-9]):([0-5][0-9]|[0-9])\s+(am|pm)\s+on\s+(3[01]|[12][0-9]|0[1-9]|[1-9])\s+([a-z]+),\s+([0-9]{4})$`)

// ParseLoCoMoTime parses a LoCoMo session time, "%I:%M %p on %d %B, %Y" in
// strptime terms ("1:56 pm on 8 May, 2023"; am/pm and month in any case),
// as a UTC time: the data carries no zone.
func ParseLoCoMoTime(s string) (time.Time, error) {
	m := locomoTimeRE.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("parse locomo time %q: want e.g. \"1:56 pm on 8 May, 2023\"", s)
	}
	hour, _ := strconv.Atoi(m[1])
	minute, _ := strconv.Atoi(m[2])
	day, _ := strconv.Atoi(m[4])
	year, _ := strconv.Atoi(m[6])
	month, ok := monthByName[strings.ToLower(m[5])]
	if !ok {
		return time.Time{}, fmt.Errorf("parse locomo time %q: unknown month %q", s, m[5])
	}
	hour %= 12
	if strings.EqualFold(m[3], "pm") {
		hour += 12
	}
	t := time.Date(year, month, day, hour, minute, 0, 0, time.UTC)
	if t.Day() != day {
		return time.Time{}, fmt.Errorf("parse locomo time %q: no day %d in %s %d", s, day, month, year)
	}
	return t, nil
}

var monthByName = func() map[string]time.Month {
	m := make(map[string]time.Month, 12)
	for mo := time.January; mo <= time.December; mo++ {
		m[strings.ToLower(mo.String())] = mo
	}
	return m
}()

package memory

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultPageSize is how many facts or entities one page of a listing
// holds when the query gives no limit; MaxPageSize is the most one page
// may ask for (a larger limit is EINVALID, never a silent cut).
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
)

// FactLister lists a bank's facts and entities a page at a time, for
// curation (the console, `mnemo facts`, the HTTP API).
type FactLister interface {
	// ListFacts returns the facts of a bank that match q, newest (highest
	// Seq) first, at most q.Limit (DefaultPageSize when 0), embeddings not
	// loaded. Page.Next is the cursor of the following page, "" after the
	// last: pages walked with it cover every fact that matched when the
	// walk began exactly once, and facts written during the walk never
	// shift a page (they have a higher Seq). A cursor that was not made
	// by this listing with the same filters is EINVALID; an invalid query
	// ([FactQuery.Validate]) is EINVALID; an unknown bank ENOTFOUND.
	ListFacts(ctx context.Context, bankID string, q FactQuery) (*FactPage, error)
	// ListEntities returns the entities of a bank that match q, by id, at
	// most q.Limit (DefaultPageSize when 0), with the same cursor contract
	// as ListFacts.
	ListEntities(ctx context.Context, bankID string, q EntityQuery) (*EntityPage, error)
}

// Lifecycle changes the status of stored facts outside a retain: the
// reversible curation path (invalidate, restore) and, later, the
// archival pass.
type Lifecycle interface {
	// SetFactStatus moves every fact of ids to status to, in one
	// transaction: all move or none does. Each move must be allowed by
	// [CheckTransition]: a fact already in status to is left as it is,
	// an id that does not exist is ENOTFOUND and a move that is not
	// allowed ECONFLICT, and either leaves every fact unchanged. Only the
	// status changes: text, times, counters and SupersededBy stay, so a
	// fact moved back is exactly what it was. Searches see the new status
	// at once. It returns the ids that changed, in the order given.
	SetFactStatus(ctx context.Context, bankID string, ids []string, to Status) ([]string, error)
}

// FactQuery selects facts to list. Empty fields match anything: with no
// Statuses every status is listed (curation shows archived and
// superseded facts too), sensitive facts included.
type FactQuery struct {
	Kinds      []FactKind
	Categories []Category
	Tags       []string // any of
	Statuses   []Status
	// From/To bound the event time ([Fact.EventTime]): From ≤ t < To;
	// zero is open.
	From, To time.Time
	// Speaker, when set, keeps the facts of that speaker (exact match).
	Speaker string
	// Source, when set, keeps the facts whose item came from that source
	// (the channel: chat, note, email, …; Document.Source), a superseded
	// version's too.
	Source string
	// ExpiresBy, when set, keeps the short-term facts whose ExpiresAt is
	// at or before it ([Fact.ExpiresBy]): the expire pass's walk. Zero
	// keeps long-term and short-term facts alike.
	ExpiresBy time.Time
	// Limit is the page size: 0 means DefaultPageSize, at most
	// MaxPageSize.
	Limit int
	// Cursor is FactPage.Next of the previous page; "" starts at the
	// newest fact.
	Cursor string
}

// FactPage is one page of a fact listing.
type FactPage struct {
	Facts []*Fact
	// Next is the cursor of the next page, "" when this is the last.
	Next string
}

// EntityQuery selects entities to list; an empty Type matches every
// type.
type EntityQuery struct {
	Type   EntityType
	Limit  int    // 0: DefaultPageSize; at most MaxPageSize
	Cursor string // EntityPage.Next of the previous page
}

// EntityPage is one page of an entity listing.
type EntityPage struct {
	Entities []*Entity
	Next     string // "" after the last page
}

// PageLimit checks a page size and gives the default for 0.
func PageLimit(limit int) (int, error) {
	switch {
	case limit < 0 || limit > MaxPageSize:
		return 0, Errorf(EINVALID, "limit %d: want 1 to %d (0 for %d)", limit, MaxPageSize, DefaultPageSize)
	case limit == 0:
		return DefaultPageSize, nil
	}
	return limit, nil
}

// Validate checks q and returns it with its defaults (Limit) filled.
// Unknown kinds, categories or statuses, a From after To and a bad limit
// are EINVALID.
func (q FactQuery) Validate() (FactQuery, error) {
	var err error
	if q.Limit, err = PageLimit(q.Limit); err != nil {
		return q, err
	}
	for _, k := range q.Kinds {
		if k != KindWorld && k != KindExperience {
			return q, Errorf(EINVALID, "unknown fact kind %q (want world or experience)", k)
		}
	}
	for _, c := range q.Categories {
		if !slices.Contains(categories, c) {
			return q, Errorf(EINVALID, "unknown category %q", c)
		}
	}
	for _, s := range q.Statuses {
		if s != StatusActive && s != StatusSuperseded && s != StatusArchived && s != StatusQuarantined {
			return q, Errorf(EINVALID, "unknown status %q (want active, superseded, archived or quarantined)", s)
		}
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.From.After(q.To) {
		return q, Errorf(EINVALID, "from %s is after to %s", q.From.Format(time.RFC3339), q.To.Format(time.RFC3339))
	}
	return q, nil
}

var categories = []Category{CategoryPersonal, CategoryProject, CategoryDecision, CategoryPreference, CategoryEvent, CategoryContact, CategoryTechnical}

// scope names the listing a fact cursor belongs to: its filters, so that
// a cursor of one listing cannot page another.
func (q FactQuery) scope() string {
	var b strings.Builder
	b.WriteString("facts")
	for _, part := range [][]string{strs(q.Kinds), strs(q.Categories), q.Tags, strs(q.Statuses), {q.Speaker, micro(q.From), micro(q.To)}} {
		b.WriteByte('|')
		b.WriteString(strings.Join(part, ","))
	}
	if !q.ExpiresBy.IsZero() {
		// Only when set, so that the cursors of other listings stay as
		// they were.
		b.WriteString("|expires:" + micro(q.ExpiresBy))
	}
	if q.Source != "" {
		b.WriteString("|source:" + q.Source)
	}
	return b.String()
}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func micro(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixMicro(), 10)
}

// AfterSeq decodes q.Cursor: the Seq below which the page starts, or 0
// for the first page. A cursor not made by [FactQuery.NextCursor] for the
// same filters is EINVALID.
func (q FactQuery) AfterSeq() (int64, error) {
	if q.Cursor == "" {
		return 0, nil
	}
	key, err := decodeCursor(q.scope(), q.Cursor)
	if err != nil {
		return 0, err
	}
	seq, err := strconv.ParseInt(key, 10, 64)
	if err != nil || seq <= 0 {
		return 0, Errorf(EINVALID, "invalid cursor")
	}
	return seq, nil
}

// Page is the page of a listing that read up to q.Limit+1 facts in
// order (a store's LIMIT is one more than the page): the first q.Limit,
// and the cursor to the rest when the extra one says there is more.
func (q FactQuery) Page(facts []*Fact) *FactPage {
	page := &FactPage{Facts: facts}
	if len(facts) > q.Limit {
		page.Facts = facts[:q.Limit]
		page.Next = q.NextCursor(page.Facts[q.Limit-1].Seq)
	}
	return page
}

// NextCursor is the cursor of the page after one that ended at the fact
// of Seq seq.
func (q FactQuery) NextCursor(seq int64) string {
	return encodeCursor(q.scope(), strconv.FormatInt(seq, 10))
}

// Validate checks q and returns it with its defaults (Limit) filled.
func (q EntityQuery) Validate() (EntityQuery, error) {
	var err error
	q.Limit, err = PageLimit(q.Limit)
	return q, err
}

// AfterID decodes q.Cursor: the entity id after which the page starts,
// or "" for the first page; a foreign or damaged cursor is EINVALID.
func (q EntityQuery) AfterID() (string, error) {
	if q.Cursor == "" {
		return "", nil
	}
	id, err := decodeCursor("entities|"+string(q.Type), q.Cursor)
	if err == nil && id == "" {
		err = Errorf(EINVALID, "invalid cursor")
	}
	return id, err
}

// NextCursor is the cursor of the page after one that ended at entity id.
func (q EntityQuery) NextCursor(id string) string {
	return encodeCursor("entities|"+string(q.Type), id)
}

// encodeCursor makes an opaque cursor holding key, checked against scope:
// base64url of key, a NUL and a short digest of scope and key. The digest
// is not a secret: it catches cursors edited by hand or carried to
// another listing, which would otherwise page silently wrong.
func encodeCursor(scope, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(key + "\x00" + cursorDigest(scope, key)))
}

// decodeCursor returns the key of a cursor made by encodeCursor for the
// same scope, or EINVALID.
func decodeCursor(scope, c string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", Errorf(EINVALID, "invalid cursor")
	}
	key, sum, ok := strings.Cut(string(raw), "\x00")
	if !ok || sum != cursorDigest(scope, key) {
		return "", Errorf(EINVALID, "invalid cursor: not one this listing made (its filters changed, or it was edited)")
	}
	return key, nil
}

func cursorDigest(scope, key string) string {
	h := sha256.Sum256([]byte(scope + "\x00" + key))
	return hex.EncodeToString(h[:6])
}

// CheckTransition reports whether fact id, in status from, may move to
// status to outside a retain, and whether that is a change. The
// reversible curation path is active ⇄ archived: an active fact is
// invalidated (archived: out of recall, which searches active facts
// only), an archived one restored. Superseded facts stay superseded: a
// newer fact replaced them, and restoring one would put two versions of a
// truth side by side. Moving to the status a fact has is no change and no
// error, so a retried request is harmless. A target other than active or
// archived is EINVALID, a move not allowed ECONFLICT.
func CheckTransition(id string, from, to Status) (change bool, err error) {
	if err := SettableStatus(to); err != nil {
		return false, err
	}
	if from == "" {
		from = StatusActive
	}
	switch {
	case from == to:
		return false, nil
	case from == StatusActive && to == StatusArchived, from == StatusArchived && to == StatusActive,
		from == StatusQuarantined && (to == StatusActive || to == StatusArchived): // approved or rejected
		return true, nil
	}
	return false, Errorf(ECONFLICT, "fact %s is %s and cannot become %s", id, from, to)
}

// SettableStatus reports whether a fact's status may be set to to
// outside a retain (active or archived); EINVALID otherwise.
func SettableStatus(to Status) error {
	if to != StatusActive && to != StatusArchived {
		return Errorf(EINVALID, "status %q cannot be set by hand (want active or archived)", to)
	}
	return nil
}

// PlanTransition checks a status change of ids ([ValidateStatusIDs],
// then [CheckTransition] for each) given the current status of those that
// exist, and returns the ids that change, in the order given. An id
// absent from current is ENOTFOUND. Stores call it inside the
// transaction that applies the change.
func PlanTransition(ids []string, current map[string]Status, to Status) ([]string, error) {
	if err := ValidateStatusIDs(ids); err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		from, ok := current[id]
		if !ok {
			return nil, Errorf(ENOTFOUND, "no fact %s", id)
		}
		change, err := CheckTransition(id, from, to)
		if err != nil {
			return nil, err
		}
		if change {
			out = append(out, id)
		}
	}
	return out, nil
}

// ValidateStatusIDs checks the ids of a status change: at least one, none
// empty, no repeats.
func ValidateStatusIDs(ids []string) error {
	if len(ids) == 0 {
		return Errorf(EINVALID, "no fact ids given")
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id == "" {
			return Errorf(EINVALID, "an empty fact id")
		}
		if seen[id] {
			return Errorf(EINVALID, "fact %s given twice", id)
		}
		seen[id] = true
	}
	return nil
}

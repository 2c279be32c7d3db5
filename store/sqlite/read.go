package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// idList passes a list as one JSON parameter, for json_each.
func idList(ids []string) string { return stringsJSON(ids) }

// maxInList bounds the bound parameters of one IN list; longer lists go
// as one JSON parameter through json_each.
const maxInList = 500

// in returns an IN list for values — "(?,?,…)" — and the query's
// arguments: lead, then the values. Parameters are bound, never spliced.
func in(values []string, lead ...any) (string, []any) {
	if len(values) > maxInList {
		return "(SELECT value FROM json_each(?))", append(lead, idList(values))
	}
	args := make([]any, 0, len(lead)+len(values))
	args = append(args, lead...)
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('?')
		args = append(args, v)
	}
	b.WriteByte(')')
	return b.String(), args
}

const factColumns = `id, seq, document_id, chunk_id, source_ref, text, kind, category, confidence, importance, sensitivity,
	speaker, evidence, tags, occurred_start, occurred_end, mentioned_at, valid_from, valid_to, created_at, expired_at,
	access_count, last_accessed, reinforcement_count, decay_score, status, superseded_by, consolidated_at, expires_at`

// scanFact scans factColumns, after the extra destinations given. The
// numbers are scanned as they come (database/sql assigns a value to an
// *any as it is, and to an *int64 or a sql.NullInt64 by reflection) and
// converted here: recall hydrates a hundred-odd facts per query.
func scanFact(bank string, r interface{ Scan(...any) error }, extra ...any) (*memory.Fact, error) {
	f := &memory.Fact{BankID: bank}
	var kind, category, sens, tags, status string
	var n [factNumbers]any
	if err := r.Scan(append(extra, &f.ID, &n[0], &f.DocumentID, &f.ChunkID, &f.SourceRef, &f.Text, &kind, &category, &n[1], &n[2], &sens,
		&f.Speaker, &f.Evidence, &tags, &n[3], &n[4], &n[5], &n[6], &n[7], &n[8], &n[9],
		&n[10], &n[11], &n[12], &n[13], &status, &f.SupersededBy, &n[14], &n[15])...); err != nil {
		return nil, err
	}
	var ints [factNumbers]int64
	var valid [factNumbers]bool
	var floats [factNumbers]float64
	for i, v := range n {
		switch v := v.(type) {
		case nil:
		case int64:
			ints[i], floats[i], valid[i] = v, float64(v), true
		case float64:
			ints[i], floats[i], valid[i] = int64(v), v, true
		default:
			return nil, fmt.Errorf("fact %s: column %d holds a %T, want a number", f.ID, i, v)
		}
	}
	f.Seq, f.Confidence, f.Importance = ints[0], floats[1], floats[2]
	f.AccessCount, f.ReinforcementCount, f.DecayScore = int(ints[10]), int(ints[12]), floats[13]
	micro := func(i int) time.Time {
		if !valid[i] {
			return time.Time{}
		}
		return fromMicro(ints[i])
	}
	f.Kind, f.Category, f.Sensitivity, f.Status = memory.FactKind(kind), memory.Category(category), memory.Sensitivity(sens), memory.Status(status)
	if tags != "[]" {
		if err := unmarshalJSON(tags, &f.Tags); err != nil {
			return nil, fmt.Errorf("fact %s tags: %w", f.ID, err)
		}
	}
	f.OccurredStart, f.OccurredEnd, f.MentionedAt = micro(3), micro(4), micro(5)
	f.ValidFrom, f.ValidTo, f.CreatedAt, f.ExpiredAt = micro(6), micro(7), micro(8), micro(9)
	f.LastAccessed, f.ConsolidatedAt, f.ExpiresAt = micro(11), micro(14), micro(15)
	return f, nil
}

// factNumbers is how many of factColumns are numbers.
const factNumbers = 16

// Facts implements memory.Store. The facts come from the store's fact
// cache (factcache.go) when it holds them under the bank's current stamp,
// which Facts reads first, and otherwise from the file: the bank's index
// maps each id to its row (pk) and the rows are read a prepared statement
// per factsChunk ids. Either way what Facts returns is current: the stamp
// moves with any change to a fact row, by this process or another. The
// search index itself keeps no fact snapshots (at 100k facts they were a
// third of its memory); the cache is bounded (DefaultFactCacheBytes). A
// fact another process deleted since the index last looked is left out,
// and a repeated id is returned once, at its first place.
func (s *Store) Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error) {
	st, err := s.readFactStamp(ctx, bankID)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	found := make([]*memory.Fact, len(ids))
	r := s.facts.get(bankID, st, ids, found)
	var missing []string
	for i, f := range found {
		if f == nil {
			missing = append(missing, ids[i])
		}
	}
	if len(missing) > 0 {
		read, err := s.readFacts(ctx, bankID, missing)
		if err != nil {
			return nil, err
		}
		s.facts.add(bankID, r, read)
		byID := make(map[string]*memory.Fact, len(read))
		for _, f := range read {
			byID[f.ID] = f
		}
		for i, f := range found {
			if f == nil {
				found[i] = byID[ids[i]]
			}
		}
	}
	out := found[:0]
	seen := make(map[string]bool, len(found))
	for _, f := range found {
		if f != nil && !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// readFacts reads the facts of ids from the file, in no given order: the
// ones the bank's index knows and the file still holds.
func (s *Store) readFacts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error) {
	pks, err := s.mirror.PKs(ctx, bankID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*memory.Fact, 0, len(pks))
	for start := 0; start < len(pks); start += factsChunk {
		rows, err := s.factRows(ctx, pks[start:min(start+factsChunk, len(pks))])
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var pk int64
			f, err := scanFact(bankID, rows, &pk)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// factsChunk is the number of pks one prepared fact lookup takes.
const factsChunk = 64

// factRows reads the facts with the given pks (at most factsChunk)
// through one cached statement, padded with pk 0, which no fact has:
// preparing a statement per call cost more than the lookup itself.
func (s *Store) factRows(ctx context.Context, pks []int64) (*sql.Rows, error) {
	args := make([]any, factsChunk)
	for i := range args {
		args[i] = int64(0)
		if i < len(pks) {
			args[i] = pks[i]
		}
	}
	return s.stmts.query(ctx, factsByPK, args...)
}

// factsByPK reads the facts of factsChunk pks.
var factsByPK = `SELECT pk, ` + factColumns + ` FROM facts WHERE pk IN (` + strings.TrimSuffix(strings.Repeat("?,", factsChunk), ",") + `)`

// SearchStems is SearchText for terms stemmed already, as lex.AppendTerms
// stems them: each is looked up as it is. Recall's kind search, which
// resolves the same long word lists query after query, stems each list
// once and searches by its stems.
func (s *Store) SearchStems(ctx context.Context, bankID string, stems []string, k int, f memory.Filter) ([]memory.Hit, error) {
	return s.mirror.SearchStems(ctx, bankID, stems, k, f)
}

// DocumentByItem implements memory.Store.
func (s *Store) DocumentByItem(ctx context.Context, bankID, source, item string) (*memory.Document, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	d := &memory.Document{BankID: bankID}
	var meta, tags string
	var occurred, created sql.NullInt64
	err := s.rdb.QueryRowContext(ctx, `SELECT id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at
		FROM documents WHERE bank_id = ? AND source = ? AND item_id = ?`, bankID, source, item).
		Scan(&d.ID, &d.Source, &d.ItemID, &d.ContentHash, &d.Content, &meta, &tags, &occurred, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, memory.Errorf(memory.ENOTFOUND, "no document %s/%s in bank %q", source, item, bankID)
	}
	if err != nil {
		return nil, err
	}
	if err := unmarshalJSON(meta, &d.Metadata); err != nil {
		return nil, err
	}
	if err := unmarshalJSON(tags, &d.Tags); err != nil {
		return nil, err
	}
	if len(d.Tags) == 0 {
		d.Tags = nil
	}
	d.OccurredAt, d.CreatedAt = fromNullMicro(occurred), fromNullMicro(created)
	return d, nil
}

// Chunks implements memory.Store.
func (s *Store) Chunks(ctx context.Context, bankID, documentID string) ([]*memory.Chunk, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, document_id, idx, text FROM chunks WHERE bank_id = ? AND document_id = ? ORDER BY idx`, bankID, documentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, dbrows.Chunk(bankID))
}

// filterSQL renders a filter as SQL conditions on facts aliased f.
func filterSQL(flt memory.Filter) (string, []any) {
	var b strings.Builder
	var args []any
	statuses := flt.Statuses
	if len(statuses) == 0 {
		statuses = []memory.Status{memory.StatusActive}
	}
	st := make([]string, len(statuses))
	for i, s := range statuses {
		st[i] = string(s)
	}
	if flt.AsOf.IsZero() {
		b.WriteString(` AND f.status IN (SELECT value FROM json_each(?))`)
		args = append(args, idList(st))
	} else {
		// Known then (memory.KnownAt), with the status it had then
		// (memory.StatusAt).
		at := flt.AsOf.UnixMicro()
		b.WriteString(` AND f.created_at <= ? AND (f.expired_at IS NULL OR f.expired_at > ?)
			AND (CASE WHEN f.status = 'superseded' AND f.expired_at > ? THEN 'active' ELSE f.status END) IN (SELECT value FROM json_each(?))`)
		args = append(args, at, at, at, idList(st))
	}
	if len(flt.Kinds) > 0 {
		ks := make([]string, len(flt.Kinds))
		for i, k := range flt.Kinds {
			ks[i] = string(k)
		}
		b.WriteString(` AND f.kind IN (SELECT value FROM json_each(?))`)
		args = append(args, idList(ks))
	}
	if len(flt.Categories) > 0 {
		cs := make([]string, len(flt.Categories))
		for i, c := range flt.Categories {
			cs[i] = string(c)
		}
		b.WriteString(` AND f.category IN (SELECT value FROM json_each(?))`)
		args = append(args, idList(cs))
	}
	if !flt.From.IsZero() {
		b.WriteString(` AND f.event_time >= ?`)
		args = append(args, flt.From.UnixMicro())
	}
	if !flt.To.IsZero() {
		b.WriteString(` AND f.event_time < ?`)
		args = append(args, flt.To.UnixMicro())
	}
	if !flt.Sensitive {
		b.WriteString(` AND f.sensitivity <> 'sensitive'`)
	}
	if len(flt.Tags) > 0 {
		b.WriteString(` AND EXISTS (SELECT 1 FROM json_each(f.tags) t WHERE t.value IN (SELECT value FROM json_each(?)))`)
		args = append(args, idList(flt.Tags))
	}
	return b.String(), args
}

// bankToken is the single FTS token that names a bank in observations_fts.bank:
// bank ids may hold characters the tokenizer splits on, a hash never does.
func bankToken(bank string) string {
	sum := sha256.Sum256([]byte(bank))
	return "b" + hex.EncodeToString(sum[:10])
}

// ftsQuery turns plain terms into an FTS5 query confined to one bank that
// can never be read as syntax: every term becomes a quoted string (quotes
// doubled), ORed in the body column. Terms with no letter or digit are
// dropped; "" means nothing to search.
func ftsQuery(bank string, terms []string) string {
	var parts []string
	for _, t := range terms {
		if !strings.ContainsFunc(t, isWordRune) {
			continue
		}
		parts = append(parts, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	if len(parts) == 0 {
		return ""
	}
	return `bank : ` + bankToken(bank) + ` AND body : (` + strings.Join(parts, " OR ") + `)`
}

func isWordRune(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
}

func scanHits(rows *sql.Rows) ([]memory.Hit, error) {
	defer rows.Close()
	return dbrows.Collect(rows, dbrows.Hit)
}

// Links implements memory.Store.
func (s *Store) Links(ctx context.Context, bankID string, factIDs []string, kinds ...memory.LinkKind) ([]memory.Link, error) {
	if err := s.requireBank(ctx, bankID); err != nil {
		return nil, err
	}
	if len(factIDs) == 0 {
		return nil, nil
	}
	inIDs, args := inPadded(factIDs, bankID)
	q := `SELECT from_id, to_id, kind, entity_id, weight FROM links WHERE bank_id = ? AND from_id IN ` + inIDs
	if len(kinds) > 0 {
		ks := make([]string, len(kinds))
		for i, k := range kinds {
			ks[i] = string(k)
		}
		inKinds, kargs := inPadded(ks)
		q += ` AND kind IN ` + inKinds
		args = append(args, kargs...)
	}
	rows, err := s.stmts.query(ctx, q+` ORDER BY from_id, kind, to_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, dbrows.Link(bankID))
}

// EntitiesByName implements memory.Store.
func (s *Store) EntitiesByName(ctx context.Context, bankID string, names []string) ([]*memory.Entity, error) {
	if err := s.requireBank(ctx, bankID); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, nil
	}
	inNames, args := inPadded(names, bankID)
	// "+entity_id": ordered by the index on (bank_id, entity_id), the
	// planner would scan every alias of the bank (17,000 in a BEAM
	// conversation) rather than look each name up by the primary key.
	rows, err := s.stmts.query(ctx, `SELECT DISTINCT entity_id FROM entity_aliases WHERE bank_id = ? AND norm IN `+inNames+` ORDER BY +entity_id`, args...)
	if err != nil {
		return nil, err
	}
	ids, err := scanStrings(rows)
	if err != nil {
		return nil, err
	}
	return s.entities(ctx, bankID, ids)
}

// Entities implements memory.Store.
func (s *Store) Entities(ctx context.Context, bankID string, ids []string) ([]*memory.Entity, error) {
	if err := s.requireBank(ctx, bankID); err != nil {
		return nil, err
	}
	return s.entities(ctx, bankID, ids)
}

// entities is Entities in a bank known to exist.
func (s *Store) entities(ctx context.Context, bankID string, ids []string) ([]*memory.Entity, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	inIDs, args := inPadded(ids, bankID)
	rows, err := s.stmts.query(ctx, `SELECT id, name, type, first_seen, last_seen, mention_count, episode_count, salience, tier, contradicted
		FROM entities WHERE bank_id = ? AND id IN `+inIDs+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	var out []*memory.Entity
	byID := map[string]*memory.Entity{}
	for rows.Next() {
		e := &memory.Entity{BankID: bankID}
		var typ, tier string
		var first, last sql.NullInt64
		if err := rows.Scan(&e.ID, &e.Name, &typ, &first, &last, &e.MentionCount, &e.EpisodeCount, &e.Salience, &tier, &e.Contradicted); err != nil {
			rows.Close()
			return nil, err
		}
		e.Type, e.Tier, e.FirstSeen, e.LastSeen = memory.EntityType(typ), memory.Tier(tier), fromNullMicro(first), fromNullMicro(last)
		out = append(out, e)
		byID[e.ID] = e
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	arows, err := s.stmts.query(ctx, `SELECT entity_id, alias FROM entity_aliases WHERE bank_id = ? AND entity_id IN `+inIDs+` ORDER BY entity_id, alias`, args...)
	if err != nil {
		return nil, err
	}
	defer arows.Close()
	for arows.Next() {
		var id, alias string
		if err := arows.Scan(&id, &alias); err != nil {
			return nil, err
		}
		if e := byID[id]; e != nil && alias != e.Name {
			e.Aliases = append(e.Aliases, alias)
		}
	}
	return out, arows.Err()
}

// EntityRefs implements memory.Store.
func (s *Store) EntityRefs(ctx context.Context, bankID string, factIDs []string) ([]memory.EntityRef, error) {
	if err := s.requireBank(ctx, bankID); err != nil {
		return nil, err
	}
	if len(factIDs) == 0 {
		return nil, nil
	}
	inIDs, args := inPadded(factIDs, bankID)
	rows, err := s.stmts.query(ctx, `SELECT fact_id, entity_id FROM entity_refs WHERE bank_id = ? AND fact_id IN `+inIDs+` ORDER BY fact_id, entity_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, dbrows.EntityRef)
}

// FactsByEntities implements memory.Store.
func (s *Store) FactsByEntities(ctx context.Context, bankID string, entityIDs []string, limit int) (map[string][]string, error) {
	if err := s.requireBank(ctx, bankID); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	if limit <= 0 || len(entityIDs) == 0 {
		return out, nil
	}
	// One index walk per entity, newest first, stopping at limit: the cost
	// follows limit, not how often an entity was ever mentioned.
	ids := slices.Compact(slices.Sorted(slices.Values(entityIDs)))
	var q strings.Builder
	args := make([]any, 0, 3*len(ids))
	for i, id := range ids {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		q.WriteString(`SELECT * FROM (SELECT r.entity_id, f.id FROM entity_refs r JOIN facts f ON f.bank_id = r.bank_id AND f.id = r.fact_id
			WHERE r.bank_id = ? AND r.entity_id = ? AND f.status = 'active' ORDER BY r.seq DESC LIMIT ?)`)
		args = append(args, bankID, id, limit)
	}
	rows, err := s.rdb.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return out, dbrows.Pairs(rows, out)
}

func scanStrings(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	return dbrows.Collect(rows, dbrows.String)
}

// RecordAccess implements memory.Store.
func (s *Store) RecordAccess(ctx context.Context, bankID string, factIDs []string, at time.Time) error {
	var av int64
	g := s.facts.beginAccess(bankID)
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `UPDATE banks SET access_version = access_version + 1 WHERE id = ? RETURNING access_version`, bankID).Scan(&av)
		if errors.Is(err, sql.ErrNoRows) {
			return memory.UnknownBank(bankID)
		}
		if err != nil {
			return err
		}
		inIDs, args := in(factIDs, at.UnixMicro(), bankID)
		_, err = tx.ExecContext(ctx, `UPDATE facts SET access_count = access_count + 1, last_accessed = ?
			WHERE bank_id = ? AND id IN `+inIDs, args...)
		return err
	})
	// The search index keeps no access counts; the fact cache gets the
	// increments the rows got.
	s.facts.endAccess(bankID, g, factIDs, at, av, err == nil)
	return err
}

// Stats implements memory.Store.
func (s *Store) Stats(ctx context.Context, bankID string) (*memory.Stats, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	st := &memory.Stats{}
	err := s.rdb.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM documents WHERE bank_id = ?1),
		(SELECT COUNT(*) FROM chunks WHERE bank_id = ?1),
		(SELECT COUNT(*) FROM facts WHERE bank_id = ?1),
		(SELECT COUNT(*) FROM facts WHERE bank_id = ?1 AND status = 'active'),
		(SELECT COUNT(*) FROM facts WHERE bank_id = ?1 AND status = 'superseded'),
		(SELECT COUNT(*) FROM facts WHERE bank_id = ?1 AND status = 'archived'),
		(SELECT COUNT(*) FROM facts WHERE bank_id = ?1 AND status = 'quarantined'),
		(SELECT COUNT(*) FROM facts INDEXED BY facts_redacted WHERE bank_id = ?1 AND instr(text, '[REDACTED:') > 0),
		(SELECT COUNT(*) FROM entities WHERE bank_id = ?1),
		(SELECT COUNT(*) FROM relations WHERE bank_id = ?1),
		(SELECT COUNT(*) FROM links WHERE bank_id = ?1)`, bankID).
		Scan(&st.Documents, &st.Chunks, &st.Facts, &st.Active, &st.Superseded, &st.Archived, &st.Quarantined, &st.Redacted, &st.Entities, &st.Relations, &st.Links)
	return st, err
}

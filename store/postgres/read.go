package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// params collects a query's arguments and names them $1, $2, ….
type params []any

// add appends v and returns its placeholder.
func (p *params) add(v any) string {
	*p = append(*p, v)
	return "$" + strconv.Itoa(len(*p))
}

const factColumns = `f.id, f.seq, f.document_id, f.chunk_id, f.source_ref, f.text, f.kind, f.category, f.confidence, f.importance, f.sensitivity,
	f.speaker, f.evidence, f.tags, f.occurred_start, f.occurred_end, f.mentioned_at, f.valid_from, f.valid_to, f.created_at, f.expired_at,
	f.access_count, f.last_accessed, f.reinforcement_count, f.decay_score, f.status, f.superseded_by, f.consolidated_at, f.expires_at`

// scanFact scans factColumns, then the extra destinations given.
func scanFact(bank string, r pgx.Row, extra ...any) (*memory.Fact, error) {
	f := &memory.Fact{BankID: bank}
	var kind, category, sens, status string
	var occS, occE, ment, vf, vt, created, exp, lastAcc, cons, expires *time.Time
	dest := []any{&f.ID, &f.Seq, &f.DocumentID, &f.ChunkID, &f.SourceRef, &f.Text, &kind, &category, &f.Confidence, &f.Importance, &sens,
		&f.Speaker, &f.Evidence, &f.Tags, &occS, &occE, &ment, &vf, &vt, &created, &exp,
		&f.AccessCount, &lastAcc, &f.ReinforcementCount, &f.DecayScore, &status, &f.SupersededBy, &cons, &expires}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	f.Kind, f.Category, f.Sensitivity, f.Status = memory.FactKind(kind), memory.Category(category), memory.Sensitivity(sens), memory.Status(status)
	if len(f.Tags) == 0 {
		f.Tags = nil
	}
	f.OccurredStart, f.OccurredEnd, f.MentionedAt = tm(occS), tm(occE), tm(ment)
	f.ValidFrom, f.ValidTo, f.CreatedAt, f.ExpiredAt = tm(vf), tm(vt), tm(created), tm(exp)
	f.LastAccessed, f.ConsolidatedAt, f.ExpiresAt = tm(lastAcc), tm(cons), tm(expires)
	return f, nil
}

// Facts implements memory.Store.
func (s *Store) Facts(ctx context.Context, bankID string, ids []string) ([]*memory.Fact, error) {
	if len(ids) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+factColumns+` FROM facts f WHERE f.bank_id = $1 AND f.id = ANY($2)`, bankID, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := make(map[string]*memory.Fact, len(ids))
	for rows.Next() {
		f, err := scanFact(bankID, rows)
		if err != nil {
			return nil, err
		}
		byID[f.ID] = f
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(byID) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	return memory.OrderByIDs(ids, byID), nil
}

// DocumentByItem implements memory.Store.
func (s *Store) DocumentByItem(ctx context.Context, bankID, source, item string) (*memory.Document, error) {
	d := &memory.Document{BankID: bankID}
	var meta []byte
	var occurred, created *time.Time
	err := s.pool.QueryRow(ctx, `SELECT id, source, item_id, content_hash, content, metadata, tags, occurred_at, created_at
		FROM documents WHERE bank_id = $1 AND source = $2 AND item_id = $3`, bankID, source, item).
		Scan(&d.ID, &d.Source, &d.ItemID, &d.ContentHash, &d.Content, &meta, &d.Tags, &occurred, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := requireBank(ctx, s.pool, bankID); err != nil {
			return nil, err
		}
		return nil, memory.Errorf(memory.ENOTFOUND, "no document %s/%s in bank %q", source, item, bankID)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(meta, &d.Metadata); err != nil {
		return nil, err
	}
	if len(d.Metadata) == 0 {
		d.Metadata = nil
	}
	if len(d.Tags) == 0 {
		d.Tags = nil
	}
	d.OccurredAt, d.CreatedAt = tm(occurred), tm(created)
	return d, nil
}

// Chunks implements memory.Store.
func (s *Store) Chunks(ctx context.Context, bankID, documentID string) ([]*memory.Chunk, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, document_id, idx, text FROM chunks WHERE bank_id = $1 AND document_id = $2 ORDER BY idx`, bankID, documentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := dbrows.Collect(rows, dbrows.Chunk(bankID))
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	return out, nil
}

// filterSQL renders a filter as SQL conditions on facts aliased f, its
// arguments added to p.
func filterSQL(flt memory.Filter, p *params) string {
	var b strings.Builder
	statuses := flt.Statuses
	if len(statuses) == 0 {
		statuses = []memory.Status{memory.StatusActive}
	}
	st := make([]string, len(statuses))
	for i, s := range statuses {
		st[i] = string(s)
	}
	if flt.AsOf.IsZero() {
		b.WriteString(` AND f.status = ANY(` + p.add(st) + `)`)
	} else {
		// Known then (memory.KnownAt), with the status it had then
		// (memory.StatusAt).
		at := p.add(ts(flt.AsOf))
		b.WriteString(` AND (f.created_at IS NULL OR f.created_at <= ` + at + `) AND (f.expired_at IS NULL OR f.expired_at > ` + at + `)
			AND (CASE WHEN f.status = 'superseded' AND f.expired_at > ` + at + ` THEN 'active' ELSE f.status END) = ANY(` + p.add(st) + `)`)
	}
	if len(flt.Kinds) > 0 {
		ks := make([]string, len(flt.Kinds))
		for i, k := range flt.Kinds {
			ks[i] = string(k)
		}
		b.WriteString(` AND f.kind = ANY(` + p.add(ks) + `)`)
	}
	if len(flt.Categories) > 0 {
		cs := make([]string, len(flt.Categories))
		for i, c := range flt.Categories {
			cs[i] = string(c)
		}
		b.WriteString(` AND f.category = ANY(` + p.add(cs) + `)`)
	}
	if !flt.From.IsZero() {
		b.WriteString(` AND f.event_time >= ` + p.add(ts(flt.From)))
	}
	if !flt.To.IsZero() {
		b.WriteString(` AND f.event_time < ` + p.add(ts(flt.To)))
	}
	if !flt.Sensitive {
		b.WriteString(` AND f.sensitivity <> 'sensitive'`)
	}
	if len(flt.Tags) > 0 {
		b.WriteString(` AND f.tags && ` + p.add(flt.Tags) + `::text[]`)
	}
	return b.String()
}

func scanHits(rows pgx.Rows) ([]memory.Hit, error) {
	defer rows.Close()
	return dbrows.Collect(rows, dbrows.Hit)
}

// Links implements memory.Store.
func (s *Store) Links(ctx context.Context, bankID string, factIDs []string, kinds ...memory.LinkKind) ([]memory.Link, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	if len(factIDs) == 0 {
		return nil, nil
	}
	p := params{bankID, factIDs}
	q := `SELECT from_id, to_id, kind, entity_id, weight FROM links WHERE bank_id = $1 AND from_id = ANY($2)`
	if len(kinds) > 0 {
		ks := make([]string, len(kinds))
		for i, k := range kinds {
			ks[i] = string(k)
		}
		q += ` AND kind = ANY(` + p.add(ks) + `)`
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY from_id, kind, to_id, entity_id`, p...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return dbrows.Collect(rows, dbrows.Link(bankID))
}

// EntitiesByName implements memory.Store.
func (s *Store) EntitiesByName(ctx context.Context, bankID string, names []string) ([]*memory.Entity, error) {
	if len(names) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT entity_id FROM entity_aliases WHERE bank_id = $1 AND norm = ANY($2) ORDER BY entity_id`, bankID, names)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	return s.Entities(ctx, bankID, ids)
}

const entityColumns = `e.id, e.name, e.type, e.first_seen, e.last_seen, e.mention_count, e.episode_count, e.salience, e.tier, e.contradicted,
	ARRAY(SELECT a.alias FROM entity_aliases a WHERE a.bank_id = e.bank_id AND a.entity_id = e.id AND a.alias <> e.name ORDER BY a.alias)`

func scanEntity(bank string, r pgx.Row, extra ...any) (*memory.Entity, error) {
	e := &memory.Entity{BankID: bank}
	var typ, tier string
	var first, last *time.Time
	if err := r.Scan(append([]any{&e.ID, &e.Name, &typ, &first, &last, &e.MentionCount, &e.EpisodeCount, &e.Salience, &tier, &e.Contradicted, &e.Aliases}, extra...)...); err != nil {
		return nil, err
	}
	e.Type, e.Tier, e.FirstSeen, e.LastSeen = memory.EntityType(typ), memory.Tier(tier), tm(first), tm(last)
	if len(e.Aliases) == 0 {
		e.Aliases = nil
	}
	return e, nil
}

// Entities implements memory.Store, ordered by id.
func (s *Store) Entities(ctx context.Context, bankID string, ids []string) ([]*memory.Entity, error) {
	if len(ids) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+entityColumns+` FROM entities e WHERE e.bank_id = $1 AND e.id = ANY($2) ORDER BY e.id`, bankID, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := dbrows.Collect(rows, func(r dbrows.Scanner) (*memory.Entity, error) {
		return scanEntity(bankID, r)
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	return out, nil
}

// EntityRefs implements memory.Store.
func (s *Store) EntityRefs(ctx context.Context, bankID string, factIDs []string) ([]memory.EntityRef, error) {
	if len(factIDs) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	rows, err := s.pool.Query(ctx, `SELECT fact_id, entity_id FROM entity_refs WHERE bank_id = $1 AND fact_id = ANY($2) ORDER BY fact_id, entity_id`, bankID, factIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := dbrows.Collect(rows, dbrows.EntityRef)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, requireBank(ctx, s.pool, bankID)
	}
	return out, nil
}

// FactsByEntities implements memory.Store: one index walk per entity,
// newest first, stopping at limit.
func (s *Store) FactsByEntities(ctx context.Context, bankID string, entityIDs []string, limit int) (map[string][]string, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	if limit <= 0 || len(entityIDs) == 0 {
		return out, nil
	}
	ids := slices.Compact(slices.Sorted(slices.Values(entityIDs)))
	rows, err := s.pool.Query(ctx, `SELECT e.id, x.fact_id FROM unnest($2::text[]) AS e(id)
		CROSS JOIN LATERAL (SELECT r.fact_id FROM entity_refs r JOIN facts f ON f.bank_id = r.bank_id AND f.id = r.fact_id
			WHERE r.bank_id = $1 AND r.entity_id = e.id AND f.status = 'active' ORDER BY r.seq DESC LIMIT $3) x`, bankID, ids, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return out, dbrows.Pairs(rows, out)
}

// RecordAccess implements memory.Store: an atomic increment, so accesses
// recorded by several processes at once all count.
func (s *Store) RecordAccess(ctx context.Context, bankID string, factIDs []string, at time.Time) error {
	if len(factIDs) == 0 {
		return requireBank(ctx, s.pool, bankID)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE facts SET access_count = access_count + 1, last_accessed = $3
		WHERE bank_id = $1 AND id = ANY($2)`, bankID, factIDs, ts(at))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return requireBank(ctx, s.pool, bankID)
	}
	return nil
}

// Stats implements memory.Store.
func (s *Store) Stats(ctx context.Context, bankID string) (*memory.Stats, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	st := &memory.Stats{}
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM documents WHERE bank_id = $1),
		(SELECT count(*) FROM chunks WHERE bank_id = $1),
		f.n, f.active, f.superseded, f.archived, f.quarantined, f.redacted,
		(SELECT count(*) FROM entities WHERE bank_id = $1),
		(SELECT count(*) FROM relations WHERE bank_id = $1),
		(SELECT count(*) FROM links WHERE bank_id = $1)
		FROM (SELECT count(*) AS n, count(*) FILTER (WHERE status = 'active') AS active,
			count(*) FILTER (WHERE status = 'superseded') AS superseded, count(*) FILTER (WHERE status = 'archived') AS archived,
			count(*) FILTER (WHERE status = 'quarantined') AS quarantined, count(*) FILTER (WHERE strpos(text, '[REDACTED:') > 0) AS redacted
			FROM facts WHERE bank_id = $1) f`, bankID).
		Scan(&st.Documents, &st.Chunks, &st.Facts, &st.Active, &st.Superseded, &st.Archived, &st.Quarantined, &st.Redacted, &st.Entities, &st.Relations, &st.Links)
	return st, err
}

package dbrows

import "github.com/mnemo-ai/mnemo/memory"

// The scans below read rows whose columns are plain text and numbers,
// the same in every store's schema; rows holding times, JSON or vectors
// are scanned by each store, which knows how it keeps them.

// Hit scans a row of (id, score).
func Hit(r Scanner) (memory.Hit, error) {
	var h memory.Hit
	err := r.Scan(&h.ID, &h.Score)
	return h, err
}

// Link returns a scan of a row of (from_id, to_id, kind, entity_id,
// weight) as a link of bank.
func Link(bank string) func(Scanner) (memory.Link, error) {
	return func(r Scanner) (memory.Link, error) {
		l := memory.Link{BankID: bank}
		var kind string
		err := r.Scan(&l.FromID, &l.ToID, &kind, &l.EntityID, &l.Weight)
		l.Kind = memory.LinkKind(kind)
		return l, err
	}
}

// Chunk returns a scan of a row of (id, document_id, idx, text) as a
// chunk of bank.
func Chunk(bank string) func(Scanner) (*memory.Chunk, error) {
	return func(r Scanner) (*memory.Chunk, error) {
		c := &memory.Chunk{BankID: bank}
		if err := r.Scan(&c.ID, &c.DocumentID, &c.Index, &c.Text); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// EntityRef scans a row of (fact_id, entity_id).
func EntityRef(r Scanner) (memory.EntityRef, error) {
	var e memory.EntityRef
	err := r.Scan(&e.FactID, &e.EntityID)
	return e, err
}

// String scans a row of one text column.
func String(r Scanner) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

// Pairs scans each row of r, two text columns (key, value), into m:
// value is appended to m[key], in row order. It returns the first scan
// error, or r's error after the last row.
func Pairs(r Rows, m map[string][]string) error {
	return Each(r, func(s Scanner) error {
		var k, v string
		if err := s.Scan(&k, &v); err != nil {
			return err
		}
		m[k] = append(m[k], v)
		return nil
	})
}

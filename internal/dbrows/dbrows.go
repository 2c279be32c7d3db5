// Package dbrows reads query results row by row, the same way for
// database/sql and pgx: *sql.Rows and pgx.Rows are both [Rows]. It holds
// the loop every query repeats (next, scan, check the error) and the
// scans of the rows every store's schema holds alike (plain text and
// numbers: hits, links, chunks, entity refs); the SQL, and the rows each
// store keeps its own way (times, JSON, vectors), stay with each store.
// It does not close rows: their Close methods differ, and the caller
// that opened them closes them.
package dbrows

// Scanner is one row to scan: *sql.Row, *sql.Rows, pgx.Row or pgx.Rows.
// It is an alias, so a scan function written for
// interface{ Scan(...any) error } is a func(Scanner).
type Scanner = interface {
	Scan(dest ...any) error
}

// Rows is a query result read row by row.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Collect scans each row of r with scan and returns the values in
// order, nil when there is no row. It returns scan's first error (and no
// values), or r's error after the last row (with the values read).
func Collect[T any](r Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	for r.Next() {
		v, err := scan(r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}

// Each calls fn with each row of r, in order. It returns fn's first
// error, or r's error after the last row.
func Each(r Rows, fn func(Scanner) error) error {
	for r.Next() {
		if err := fn(r); err != nil {
			return err
		}
	}
	return r.Err()
}

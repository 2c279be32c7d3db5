package dbrows_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// fakeRows is a result of ints; scanErr fails the scan of that row (from
// 1), err is the result's error after the last row.
type fakeRows struct {
	vals    []int
	at      int
	scanErr int
	err     error
}

func (r *fakeRows) Next() bool { r.at++; return r.at <= len(r.vals) }
func (r *fakeRows) Err() error { return r.err }
func (r *fakeRows) Scan(dest ...any) error {
	if r.at == r.scanErr {
		return errors.New("scan")
	}
	*dest[0].(*int) = r.vals[r.at-1]
	return nil
}

func scanInt(s dbrows.Scanner) (int, error) {
	var v int
	err := s.Scan(&v)
	return v, err
}

func TestCollect(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		got, err := dbrows.Collect(&fakeRows{vals: []int{3, 1, 2}}, scanInt)
		if err != nil || !slices.Equal(got, []int{3, 1, 2}) {
			t.Errorf("Collect = %v, %v, want [3 1 2]", got, err)
		}
	})
	t.Run("NoRows", func(t *testing.T) {
		got, err := dbrows.Collect(&fakeRows{}, scanInt)
		if err != nil || got != nil {
			t.Errorf("Collect = %#v, %v, want nil", got, err)
		}
	})
	t.Run("ErrScan", func(t *testing.T) {
		got, err := dbrows.Collect(&fakeRows{vals: []int{1, 2, 3}, scanErr: 2}, scanInt)
		if err == nil || got != nil {
			t.Errorf("Collect = %v, %v, want the scan error", got, err)
		}
	})
	t.Run("ErrRows", func(t *testing.T) {
		want := errors.New("rows")
		got, err := dbrows.Collect(&fakeRows{vals: []int{1}, err: want}, scanInt)
		if !errors.Is(err, want) || !slices.Equal(got, []int{1}) {
			t.Errorf("Collect = %v, %v, want [1], %v", got, err, want)
		}
	})
}

func TestEach(t *testing.T) {
	var got []int
	err := dbrows.Each(&fakeRows{vals: []int{5, 6}}, func(s dbrows.Scanner) error {
		v, err := scanInt(s)
		got = append(got, v)
		return err
	})
	if err != nil || !slices.Equal(got, []int{5, 6}) {
		t.Errorf("Each = %v, %v, want [5 6]", got, err)
	}
	stop := errors.New("stop")
	n := 0
	err = dbrows.Each(&fakeRows{vals: []int{1, 2, 3}}, func(dbrows.Scanner) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Each = %v after %d calls, want stop after 1", err, n)
	}
	want := errors.New("rows")
	if err := dbrows.Each(&fakeRows{err: want}, func(dbrows.Scanner) error { return nil }); !errors.Is(err, want) {
		t.Errorf("Each = %v, want %v", err, want)
	}
}

// tableRows is a result of string and number columns; Scan copies a row
// into the destinations as database/sql would for these types.
type tableRows struct {
	rows [][]any
	at   int
}

func (r *tableRows) Next() bool { r.at++; return r.at <= len(r.rows) }
func (r *tableRows) Err() error { return nil }
func (r *tableRows) Scan(dest ...any) error {
	row := r.rows[r.at-1]
	if len(dest) != len(row) {
		return errors.New("column count")
	}
	for i, d := range dest {
		switch d := d.(type) {
		case *string:
			*d = row[i].(string)
		case *float64:
			*d = row[i].(float64)
		case *int:
			*d = row[i].(int)
		default:
			return errors.New("destination type")
		}
	}
	return nil
}

func TestScans(t *testing.T) {
	hits, err := dbrows.Collect(&tableRows{rows: [][]any{{"f1", 0.5}}}, dbrows.Hit)
	if err != nil || len(hits) != 1 || hits[0] != (memory.Hit{ID: "f1", Score: 0.5}) {
		t.Errorf("Hit = %v, %v", hits, err)
	}
	links, err := dbrows.Collect(&tableRows{rows: [][]any{{"a", "b", "entity", "e", 0.25}}}, dbrows.Link("bk"))
	want := memory.Link{BankID: "bk", FromID: "a", ToID: "b", Kind: memory.LinkKind("entity"), EntityID: "e", Weight: 0.25}
	if err != nil || len(links) != 1 || links[0] != want {
		t.Errorf("Link = %+v, %v, want %+v", links, err, want)
	}
	chunks, err := dbrows.Collect(&tableRows{rows: [][]any{{"c1", "d1", 2, "text"}}}, dbrows.Chunk("bk"))
	if err != nil || len(chunks) != 1 || *chunks[0] != (memory.Chunk{BankID: "bk", ID: "c1", DocumentID: "d1", Index: 2, Text: "text"}) {
		t.Errorf("Chunk = %+v, %v", chunks, err)
	}
	if _, err := dbrows.Collect(&tableRows{rows: [][]any{{"c1"}}}, dbrows.Chunk("bk")); err == nil {
		t.Error("Chunk of a short row: no error")
	}
	refs, err := dbrows.Collect(&tableRows{rows: [][]any{{"f", "e"}}}, dbrows.EntityRef)
	if err != nil || len(refs) != 1 || refs[0] != (memory.EntityRef{FactID: "f", EntityID: "e"}) {
		t.Errorf("EntityRef = %+v, %v", refs, err)
	}
	strs, err := dbrows.Collect(&tableRows{rows: [][]any{{"x"}, {"y"}}}, dbrows.String)
	if err != nil || !slices.Equal(strs, []string{"x", "y"}) {
		t.Errorf("String = %v, %v", strs, err)
	}
}

func TestPairs(t *testing.T) {
	m := map[string][]string{"e0": {"f0"}}
	err := dbrows.Pairs(&tableRows{rows: [][]any{{"e1", "f1"}, {"e0", "f2"}, {"e1", "f3"}}}, m)
	if err != nil || !slices.Equal(m["e0"], []string{"f0", "f2"}) || !slices.Equal(m["e1"], []string{"f1", "f3"}) {
		t.Errorf("Pairs = %v, %v", m, err)
	}
	if err := dbrows.Pairs(&tableRows{rows: [][]any{{"e1"}}}, m); err == nil {
		t.Error("Pairs of a short row: no error")
	}
}

package dbrows_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
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

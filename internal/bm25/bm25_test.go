package bm25

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestIDF(t *testing.T) {
	// One document of one holding the term: ln(1 + 0.5/1.5) = ln(4/3).
	if got, want := IDF(1, 1), math.Log(4.0/3); !near(got, want) {
		t.Errorf("IDF(1, 1) = %v, want %v", got, want)
	}
	// Rarer is worth more, and a term every document holds still counts.
	if IDF(100, 1) <= IDF(100, 50) || IDF(100, 100) <= 0 {
		t.Errorf("IDF(100, 1) = %v, IDF(100, 50) = %v, IDF(100, 100) = %v: want decreasing and positive",
			IDF(100, 1), IDF(100, 50), IDF(100, 100))
	}
}

func TestNorm(t *testing.T) {
	if got := Norm(7, 0); got != K1 {
		t.Errorf("Norm(7, 0) = %v, want K1", got)
	}
	if got := Norm(10, 10); !near(got, K1) {
		t.Errorf("Norm of an average document = %v, want K1", got)
	}
	if got, want := Norm(20, 10), K1*(1-B+2*B); !near(got, want) {
		t.Errorf("Norm(20, 10) = %v, want %v", got, want)
	}
	for _, avg := range []float64{0, 3.5, 12} {
		c0, c1 := Linear(avg)
		for _, l := range []float64{0, 1, 9, 40} {
			if got, want := c0+c1*l, Norm(l, avg); !near(got, want) {
				t.Errorf("Linear(%v) at length %v = %v, want Norm %v", avg, l, got, want)
			}
		}
	}
}

func TestTerm(t *testing.T) {
	idf := IDF(10, 2)
	// tf 1 in an average document: idf · (K1+1) / (1+K1) = idf.
	if got := Term(idf, 1, K1); !near(got, idf) {
		t.Errorf("Term(idf, 1, K1) = %v, want idf %v", got, idf)
	}
	// More occurrences score more but saturate below idf·(K1+1).
	prev := 0.0
	for _, tf := range []float64{1, 2, 5, 100} {
		s := Term(idf, tf, K1)
		if s <= prev || s >= idf*(K1+1) {
			t.Errorf("Term(tf %v) = %v: want above %v and below %v", tf, s, prev, idf*(K1+1))
		}
		prev = s
	}
	// A longer document scores a term less.
	if Term(idf, 2, Norm(30, 10)) >= Term(idf, 2, Norm(5, 10)) {
		t.Error("a long document scores a term as much as a short one")
	}
}

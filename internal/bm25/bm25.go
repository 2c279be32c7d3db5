// Package bm25 is Okapi BM25 as every mnemo store scores keyword search:
// Lucene's IDF and length normalisation with k1 1.2 and b 0.75 (PROTOCOL
// §2.2). The SQLite search mirror, PostgreSQL's search and the conformance
// suite's reference store all score through it, so a score means the same
// in each. What a store counts — its words, stemming, stopwords, documents
// and statistics — stays with the store; only the formula lives here.
//
// The functions are pure and inlined into the stores' scoring loops; they
// are spelled so that a store's scores are bit-for-bit what the formula
// written out in place gives: idf · tf · (k1+1) / (tf + k1 (1 − b + b·len/avg)).
package bm25

import "math"

// The BM25 parameters (Okapi BM25 as in Lucene).
const (
	// K1 is the term-frequency saturation: a term's contribution tends to
	// idf·(K1+1) as its frequency grows.
	K1 = 1.2
	// B is the weight of a document's length relative to the average.
	B = 0.75
)

// IDF returns Lucene's inverse document frequency of a term that df of n
// documents hold: ln(1 + (n − df + 0.5) / (df + 0.5)), positive even for a
// term every document holds.
func IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Norm returns the length normalisation of a document of length words in
// a collection whose documents hold avg words on average:
// K1 · (1 − B + B·length/avg), or K1 when avg is 0 (no words at all).
func Norm(length, avg float64) float64 {
	if avg > 0 {
		return K1 * (1 - B + B*length/avg)
	}
	return K1
}

// Linear returns [Norm] as c0 + c1·length for collections whose documents
// average avg words, for a scorer that takes the statistics as parameters
// of a query (PostgreSQL's SQL); it equals Norm up to rounding.
func Linear(avg float64) (c0, c1 float64) {
	if avg > 0 {
		return K1 * (1 - B), K1 * B / avg
	}
	return K1, 0
}

// Term returns one query term's contribution to a document's score: idf
// (from [IDF]) times tf·(K1+1) / (tf + norm), with tf the term's frequency
// in the document and norm the document's [Norm]. A document's score is
// the sum over the query's distinct terms it holds.
func Term(idf, tf, norm float64) float64 {
	return idf * tf * (K1 + 1) / (tf + norm)
}

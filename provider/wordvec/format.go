package wordvec

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"math"
)

// The .mwv file, format version 1. Import writes it, Open reads it. All
// integers and floats are little-endian; every section begins at a
// multiple of 8 bytes from the start of the file (padding is zero bytes).
//
//	offset size  field
//	0      8     magic "MNEMOWV\x00"
//	8      4     version: FormatVersion
//	12     4     dim: length of every vector
//	16     4     count: words in the file
//	20     4     sourceCount: entries in the source file (the N of the Zipf law)
//	24     4     flags: reserved, 0
//	28     4     slots: entries of the hash table, a power of two ≥ 2·count
//	32     8     wordBytes: length of the word blob
//	40     4     nameLen: length of the name section
//	44     4     CRC-32C (Castagnoli) of every byte after the header
//	48     32    SHA-256 id: of bytes 8–40 of the header and of every
//	             section after the name (so not of the source's name)
//	80           sections, in this order:
//	  name     nameLen bytes      the source file's base name, UTF-8
//	  ranks    count × uint32     1-based frequency rank of each word in the source
//	  offsets  (count+1) × uint32 word i is blob[offsets[i]:offsets[i+1]]
//	  blob     wordBytes bytes    the words, concatenated
//	  table    slots × uint32     hash table, linear probing; 0 = empty, else word index + 1
//	  scales   count × float32    vector i is scales[i] × vectors[i]
//	  vectors  count × dim int8   the quantised vectors
//
// Words are stored in the source's order, which for GloVe, word2vec and
// fastText files is descending frequency, so ranks increase. Each word is
// lower-cased and spelled as lex.Words spells it; a source entry that is
// not one such word (punctuation, "n't", a phrase) or repeats an earlier
// one is left out, but keeps its place in the ranks of the others.
//
// Vectors are quantised per vector: scale = max|v_i| / 127 and
// q_i = round(v_i / scale), so the largest component is exact and the
// error of any other is at most scale/2. A file of 400,000 100-d vectors
// takes about 50 MB, a quarter of the float32 vectors.
//
// The table lets Open use the file as it was read, with no per-word work:
// a word's slot is its FNV-1a hash (splitmix64-finalised) modulo slots.

// FormatVersion is the version of the .mwv layout Import writes and Open
// reads. A change to the layout or to what Import stores bumps it; it is
// part of the id, so it changes every Name.
const FormatVersion = 1

// magic opens every .mwv file.
const magic = "MNEMOWV\x00"

// headerSize is the size of the fixed header.
const headerSize = 80

// Maximum sizes Open and Import accept: far above any real vector file,
// low enough that the offsets fit their uint32 fields.
const (
	maxDim   = 4096
	maxWords = 1 << 26
	maxBlob  = 1 << 31
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is the fixed header of a .mwv file.
type header struct {
	version     uint32
	dim         uint32
	count       uint32
	sourceCount uint32
	flags       uint32
	slots       uint32
	wordBytes   uint64
	nameLen     uint32
	crc         uint32
	id          [32]byte
}

func (h *header) encode(b []byte) {
	copy(b[0:8], magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], h.version)
	le.PutUint32(b[12:], h.dim)
	le.PutUint32(b[16:], h.count)
	le.PutUint32(b[20:], h.sourceCount)
	le.PutUint32(b[24:], h.flags)
	le.PutUint32(b[28:], h.slots)
	le.PutUint64(b[32:], h.wordBytes)
	le.PutUint32(b[40:], h.nameLen)
	le.PutUint32(b[44:], h.crc)
	copy(b[48:80], h.id[:])
}

func (h *header) decode(b []byte) {
	le := binary.LittleEndian
	h.version = le.Uint32(b[8:])
	h.dim = le.Uint32(b[12:])
	h.count = le.Uint32(b[16:])
	h.sourceCount = le.Uint32(b[20:])
	h.flags = le.Uint32(b[24:])
	h.slots = le.Uint32(b[28:])
	h.wordBytes = le.Uint64(b[32:])
	h.nameLen = le.Uint32(b[40:])
	h.crc = le.Uint32(b[44:])
	copy(h.id[:], b[48:80])
}

// layout is where each section lies in a file, in bytes from its start.
type layout struct {
	name, ranks, offsets, blob, table, scales, vectors, end int
}

// pad8 rounds n up to a multiple of 8.
func pad8(n int) int { return (n + 7) &^ 7 }

// layoutOf computes the section offsets of a file with header h. The
// header's sizes must be within the maximums.
func layoutOf(h *header) layout {
	var l layout
	dim, count := int(h.dim), int(h.count)
	l.name = headerSize
	l.ranks = pad8(l.name + int(h.nameLen))
	l.offsets = pad8(l.ranks + 4*count)
	l.blob = pad8(l.offsets + 4*(count+1))
	l.table = pad8(l.blob + int(h.wordBytes))
	l.scales = pad8(l.table + 4*int(h.slots))
	l.vectors = pad8(l.scales + 4*count)
	l.end = l.vectors + count*dim
	return l
}

// fileID returns the SHA-256 id of a file whose header (with its sizes
// filled in) is b[:headerSize] and whose sections follow as in l.
func fileID(b []byte, l layout) [32]byte {
	h := sha256.New()
	h.Write(b[8:40])
	h.Write(b[l.ranks:l.end])
	var id [32]byte
	h.Sum(id[:0])
	return id
}

// shortID is the id as Name shows it: the first 6 bytes in hex.
func shortID(id [32]byte) string { return hex.EncodeToString(id[:6]) }

// tableSlots returns the hash table size for count words: the smallest
// power of two at least twice count (load ≤ 1/2: short probes, and always
// an empty slot to end a search).
func tableSlots(count int) int {
	n := 2
	for n < 2*count {
		n <<= 1
	}
	return n
}

// FNV-1a 64.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// hashWord hashes a word for the table: FNV-1a, then the splitmix64
// finaliser, because FNV's low bits are weak for short keys.
func hashWord(w string) uint64 {
	h := fnvOffset
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * fnvPrime
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// quantize writes the int8 quantisation of v to q (len(v)) and returns its
// scale: max|v_i|/127, or 0 for the zero vector.
func quantize(v []float32, q []byte) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(q)
		return 0
	}
	scale := m / 127
	for i, x := range v {
		r := math.Round(float64(x / scale))
		r = min(max(r, -127), 127)
		q[i] = byte(int8(r))
	}
	return scale
}

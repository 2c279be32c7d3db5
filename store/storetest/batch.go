package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestEmbedder and TestDimension are the embedder name and dimension the
// suite records on the banks it creates; NewTestFact embeds with them.
const (
	TestEmbedder  = "storetest-hash"
	TestDimension = 8
)

// testTime is the suite's reference time: UTC, truncated to the
// microsecond (the precision every store keeps).
var testTime = time.Date(2025, time.March, 14, 9, 26, 53, 589793000, time.UTC)

var zeroTime time.Time

// hours returns testTime moved by h hours.
func hours(h float64) time.Time {
	return testTime.Add(time.Duration(h * float64(time.Hour)))
}

// TestVector returns a deterministic unit vector of dimension dim derived
// from text: the same text always gives the same vector, different texts
// give unrelated ones. It stands in for an embedder in tests.
func TestVector(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	sum := h.Sum64()
	return randomUnit(rand.New(rand.NewPCG(sum, sum^0x9e3779b97f4a7c15)), dim)
}

// randomUnit returns a random unit vector: normal components, normalised.
func randomUnit(rng *rand.Rand, dim int) []float32 {
	v := make([]float64, dim)
	var norm float64
	for i := range v {
		v[i] = rng.NormFloat64()
		norm += v[i] * v[i]
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dim)
	for i := range v {
		out[i] = float32(v[i] / norm)
	}
	return out
}

// contentHash returns the hex SHA-256 of content, as Document.ContentHash.
func contentHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// NewTestFact returns an active, open, world fact of bank with the given
// id and text, embedded with TestVector at TestDimension, mentioned and
// created at a fixed time. Callers adjust the fields they care about.
func NewTestFact(bankID, id, text string) *memory.Fact {
	return &memory.Fact{
		ID:          id,
		BankID:      bankID,
		Text:        text,
		Kind:        memory.KindWorld,
		Category:    memory.CategoryPersonal,
		Confidence:  0.9,
		Importance:  0.5,
		Sensitivity: memory.SensitivityOpen,
		Speaker:     "Sam",
		Embedding:   TestVector(text, TestDimension),
		MentionedAt: testTime,
		CreatedAt:   testTime,
		Status:      memory.StatusActive,
	}
}

// NewTestDocument returns a document of bank with the given id, source,
// item and content, its hash the hex SHA-256 of the content.
func NewTestDocument(bankID, id, source, item, content string) *memory.Document {
	return &memory.Document{
		ID:          id,
		BankID:      bankID,
		Source:      source,
		ItemID:      item,
		ContentHash: contentHash(content),
		Content:     content,
		OccurredAt:  testTime,
		CreatedAt:   testTime,
	}
}

// NewTestBatch returns a batch that retains one note of bank: document
// docID (item docID, content the texts one per line), and for each text a
// chunk and a fact made by NewTestFact with id TestFactID(docID, i).
func NewTestBatch(bankID, docID string, texts ...string) *memory.WriteBatch {
	w := &memory.WriteBatch{
		BankID:   bankID,
		Document: NewTestDocument(bankID, docID, memory.SourceNote, docID, strings.Join(texts, "\n")),
	}
	for i, text := range texts {
		c := &memory.Chunk{ID: memory.ChunkID(bankID, docID, i), BankID: bankID, DocumentID: docID, Index: i, Text: text}
		f := NewTestFact(bankID, TestFactID(docID, i), text)
		f.DocumentID = docID
		f.ChunkID = c.ID
		w.Chunks = append(w.Chunks, c)
		w.Facts = append(w.Facts, f)
	}
	return w
}

// TestFactID is the id NewTestBatch gives the i-th fact of document docID.
func TestFactID(docID string, i int) string {
	return docID + "-f" + strconv.Itoa(i)
}

// batchIDs returns the ids of a batch's facts.
func batchIDs(w *memory.WriteBatch) []string {
	return factIDs(w.Facts)
}

// fullFact returns a fact with every field set to a value distinct for n,
// so a store that drops or swaps a field fails a round trip.
func fullFact(bankID, docID, id, text string, n int) *memory.Fact {
	d := time.Duration(n) * time.Minute
	return &memory.Fact{
		ID:                 id,
		BankID:             bankID,
		DocumentID:         docID,
		ChunkID:            memory.ChunkID(bankID, docID, n),
		SourceRef:          "D1:" + strconv.Itoa(n),
		Text:               text,
		Kind:               memory.KindExperience,
		Category:           memory.CategoryPreference,
		Confidence:         0.8 + float64(n)/100,
		Importance:         0.6 + float64(n)/100,
		Sensitivity:        memory.SensitivityPrivate,
		Speaker:            "Melanie",
		Evidence:           "evidence quote " + strconv.Itoa(n),
		Tags:               []string{"tag-b" + strconv.Itoa(n), "tag-a"},
		Embedding:          TestVector(text, TestDimension),
		OccurredStart:      testTime.Add(-48*time.Hour + d),
		OccurredEnd:        testTime.Add(-47*time.Hour + d),
		MentionedAt:        testTime.Add(-24*time.Hour + d),
		ValidFrom:          testTime.Add(-46*time.Hour + d),
		ValidTo:            testTime.Add(240*time.Hour + d),
		CreatedAt:          testTime.Add(d),
		ExpiredAt:          testTime.Add(480*time.Hour + d),
		AccessCount:        2 + n,
		LastAccessed:       testTime.Add(time.Hour + d),
		ReinforcementCount: 1 + n,
		DecayScore:         0.25 + float64(n)/100,
		Status:             memory.StatusActive,
		ConsolidatedAt:     testTime.Add(2*time.Hour + d),
		ExpiresAt:          testTime.Add(72*time.Hour + d),
	}
}

// cloneBatch returns a deep copy of w.
func cloneBatch(w *memory.WriteBatch) *memory.WriteBatch {
	c := *w
	if d := w.Document; d != nil {
		x := *d
		x.Tags, x.Metadata = slices.Clone(d.Tags), maps.Clone(d.Metadata)
		c.Document = &x
	}
	c.Chunks = nil
	for _, ch := range w.Chunks {
		x := *ch
		c.Chunks = append(c.Chunks, &x)
	}
	c.Facts = nil
	for _, f := range w.Facts {
		x := *f
		x.Tags, x.Embedding = slices.Clone(f.Tags), slices.Clone(f.Embedding)
		c.Facts = append(c.Facts, &x)
	}
	c.Entities = slices.Clone(w.Entities)
	for i := range c.Entities {
		c.Entities[i].Entity.Aliases = slices.Clone(w.Entities[i].Entity.Aliases)
	}
	c.Relations = nil
	for _, r := range w.Relations {
		x := *r
		x.FactIDs = slices.Clone(r.FactIDs)
		c.Relations = append(c.Relations, &x)
	}
	c.RelationCloses = slices.Clone(w.RelationCloses)
	c.Refs, c.Cooccurrences, c.Links = slices.Clone(w.Refs), slices.Clone(w.Cooccurrences), slices.Clone(w.Links)
	c.Reinforce, c.Supersede = slices.Clone(w.Reinforce), slices.Clone(w.Supersede)
	if wm := w.Watermark; wm != nil {
		x := *wm
		c.Watermark = &x
	}
	return &c
}

package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
)

// QAData is a question-answering dataset: memory spaces to retain, each
// with the questions to answer from it and their gold answers.
type QAData struct {
	// Format is the file's format: importer.FormatLoCoMo or
	// importer.FormatLongMemEval.
	Format importer.Format
	// Digest is the hex SHA-256 of the file read: an answers file is tied
	// to it.
	Digest string
	// Spaces are the memory spaces in file order.
	Spaces []*QASpace
	// Categories are the question categories in report order.
	Categories []string
}

// QASpace is one memory space: one bank.
type QASpace struct {
	// ID names the bank (after QAOptions.BankPrefix): a LoCoMo sample_id,
	// a LongMemEval question_id.
	ID string
	// Requests are the retain requests of the space, BankID left empty:
	// the runner sets it.
	Requests  []memory.RetainRequest
	Questions []QAQuestion
}

// QAQuestion is one question with its gold answer. The engine and the
// reader see only Question and Now; the judge sees Answer.
type QAQuestion struct {
	ID       string
	Question string
	// Answer is the gold answer (for a LongMemEval abstention question,
	// the explanation of why it cannot be answered).
	Answer string
	// Category is the LoCoMo category's protocol name ("multi-hop", …)
	// or the LongMemEval question_type.
	Category string
	// Abstention marks a LongMemEval question whose right answer is that
	// the history does not tell; its judge prompt differs.
	Abstention bool
	// Skip marks a question left out by convention: LoCoMo category 5
	// (adversarial), which the published LoCoMo "J" figures skip.
	Skip bool
	// Now is the question's reference time.
	Now time.Time
}

// LoadQA reads a question-answering dataset from path: LoCoMo or
// LongMemEval, told apart by importer.Detect. See [ReadLoCoMoQA] and
// [ReadLongMemEvalQA].
func LoadQA(path string) (*QAData, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load qa data: %w", err)
	}
	format, err := importer.Detect(filepath.Base(path), b[:min(len(b), importer.DetectSize)])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var d *QAData
	switch format {
	case importer.FormatLoCoMo:
		d, err = ReadLoCoMoQA(bytes.NewReader(b))
	case importer.FormatLongMemEval:
		d, err = ReadLongMemEvalQA(bytes.NewReader(b))
	default:
		return nil, memory.Errorf(memory.EINVALID, "%s: a %s file, not a LoCoMo or LongMemEval dataset", path, format)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// digest returns the hex SHA-256 of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ReadLoCoMoQA reads a LoCoMo file (see importer.ReadLoCoMo) with its
// gold answers: one space per conversation, retained session by session,
// one question per qa entry in file order, with the conversation's latest
// session time as now. Questions of category 5 (adversarial) are kept
// with Skip set; every other question is judged, with or without
// evidence (evidence only matters to retrieval metrics). An answer that
// is a number in the file is its JSON text.
func ReadLoCoMoQA(r io.Reader) (*QAData, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read locomo: %w", err)
	}
	data, err := importer.ReadLoCoMo(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	// importer.ReadLoCoMo keeps no answers: read them beside it.
	var raw []struct {
		SampleID string `json:"sample_id"`
		QA       []struct {
			Answer json.RawMessage `json:"answer"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("decode locomo answers: %w", err)
	}
	d := &QAData{Format: importer.FormatLoCoMo, Digest: digest(b)}
	for _, cat := range evaluatedCategories {
		d.Categories = append(d.Categories, cat.String())
	}
	for i, c := range data.Conversations {
		sp := &QASpace{ID: c.ID, Requests: c.RetainRequests("")}
		for j, q := range c.Queries {
			answer := jsonText(raw[i].QA[j].Answer)
			skip := !q.Category.Evaluated()
			if !skip && answer == "" {
				return nil, fmt.Errorf("conversation %s: question %d (%s): no answer", c.ID, j, q.Question)
			}
			sp.Questions = append(sp.Questions, QAQuestion{
				ID:       q.ID,
				Question: q.Question,
				Answer:   answer,
				Category: q.Category.String(),
				Skip:     skip,
				Now:      c.Now,
			})
		}
		d.Spaces = append(d.Spaces, sp)
	}
	return d, nil
}

// ReadLongMemEvalQA reads a LongMemEval file (see
// importer.ReadLongMemEval): one space per question, its haystack
// retained session by session, the question's date as now. Every
// question is judged, abstention questions included (with their own
// judge prompt); its question_type is its category.
func ReadLongMemEvalQA(r io.Reader) (*QAData, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read longmemeval: %w", err)
	}
	data, err := importer.ReadLongMemEval(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	d := &QAData{Format: importer.FormatLongMemEval, Digest: digest(b)}
	seen := map[string]bool{}
	for _, q := range data.Questions {
		if !seen[q.Type] {
			seen[q.Type] = true
			d.Categories = append(d.Categories, q.Type)
		}
		d.Spaces = append(d.Spaces, &QASpace{
			ID:       q.ID,
			Requests: q.RetainRequests(""),
			Questions: []QAQuestion{{
				ID:         q.ID,
				Question:   q.Question,
				Answer:     q.Answer,
				Category:   q.Type,
				Abstention: q.Abstention(),
				Now:        q.Now(),
			}},
		})
	}
	return d, nil
}

// jsonText returns a JSON string's value, any other JSON value's text,
// and "" for null or nothing.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/mnemo-ai/mnemo/memory"
)

// QAFileVersion is the version of the answers file format.
const QAFileVersion = 1

// QAHeader is the first line of an answers file: what the answers in it
// were made with. A run resumes a file only when every field matches.
type QAHeader struct {
	Kind    string `json:"kind"` // "header"
	Version int    `json:"version"`
	// Format and Data name the dataset: its format and the SHA-256 of
	// the file.
	Format string `json:"format"`
	Data   string `json:"data_sha256"`
	// Mode is QAModeRecall or QAModeReflect.
	Mode string `json:"mode"`
	// Reader and Judge are the models (memory.LLM.Name); in reflect mode
	// Reader is the engine's.
	Reader       string `json:"reader"`
	Judge        string `json:"judge"`
	ReaderPrompt string `json:"reader_prompt"`
	JudgePrompt  string `json:"judge_prompt"`
	// Limit and Budget are recall's (0: recall's defaults).
	Limit  int `json:"limit"`
	Budget int `json:"budget"`
	// Engine describes the engine's own settings (extraction, embedder)
	// as the caller words them.
	Engine string `json:"engine"`
}

// QARecord is one line of an answers file: one question's answer and
// verdict, or the error that kept it from one. A later line for the same
// question replaces an earlier one (a question that failed is retried by
// the next run).
type QARecord struct {
	Kind     string `json:"kind"` // "answer"
	ID       string `json:"id"`
	Category string `json:"category"`
	Question string `json:"question"`
	Gold     string `json:"gold"`
	Answer   string `json:"answer"`
	// Verdict is VerdictCorrect or VerdictWrong; empty when Error is set.
	Verdict string `json:"verdict,omitempty"`
	// Judged is the judge's raw reply.
	Judged string `json:"judge_reply,omitempty"`
	// Error says why the question has no verdict (a reader or judge
	// failure, a reply the judge rules cannot read).
	Error string `json:"error,omitempty"`
	// MemoryIDs are what the answer was built from: in recall mode the
	// source refs of the recalled facts in rank order, in reflect mode the
	// memories reflect says it used.
	MemoryIDs []string `json:"memory_ids,omitempty"`
	// ContextTokens is the size of recall's context (recall mode).
	ContextTokens      int `json:"context_tokens"`
	ReaderInputTokens  int `json:"reader_input_tokens"`
	ReaderOutputTokens int `json:"reader_output_tokens"`
	JudgeInputTokens   int `json:"judge_input_tokens"`
	JudgeOutputTokens  int `json:"judge_output_tokens"`
	// ContextMS is the recall that built the context, ReaderMS the reader
	// call (in reflect mode, the whole reflect), JudgeMS the judge call.
	ContextMS float64 `json:"context_ms"`
	ReaderMS  float64 `json:"reader_ms"`
	JudgeMS   float64 `json:"judge_ms"`
}

// qaAnswers is an open answers file: the checkpoint of a run. Append is
// safe for concurrent use.
type qaAnswers struct {
	mu   sync.Mutex
	f    *os.File
	path string
	// records are the file's records by question id, the last line of
	// each.
	records map[string]*QARecord
}

// openQAAnswers opens the answers file at path for h. A new or empty file
// gets h as its first line. An existing file must start with a header
// equal to h; its records are read, a partial last line (a run killed
// while writing) is cut off, and later records are appended.
func openQAAnswers(path string, h QAHeader) (*qaAnswers, error) {
	h.Kind, h.Version = "header", QAFileVersion
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, memory.Errorf(memory.EINVALID, "read answers file: %v", err)
	}
	a := &qaAnswers{path: path, records: map[string]*QARecord{}}
	keep := 0 // bytes of complete lines
	if len(b) > 0 {
		if keep, err = a.read(b, h); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "open answers file: %v", err)
	}
	if err := f.Truncate(int64(keep)); err != nil {
		f.Close()
		return nil, fmt.Errorf("answers file %s: %w", path, err)
	}
	if _, err := f.Seek(int64(keep), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("answers file %s: %w", path, err)
	}
	a.f = f
	if keep == 0 {
		if err := a.writeLine(h); err != nil {
			f.Close()
			return nil, err
		}
	}
	return a, nil
}

// read parses the file's content b against h and returns the length of
// its complete lines.
func (a *qaAnswers) read(b []byte, want QAHeader) (int, error) {
	end := bytes.LastIndexByte(b, '\n') + 1 // a last line without '\n' was cut by a kill
	lines := bytes.Split(b[:end], []byte("\n"))
	if end == 0 {
		return 0, nil // not even the header was written whole
	}
	var got QAHeader
	if err := json.Unmarshal(lines[0], &got); err != nil || got.Kind != "header" {
		return 0, memory.Errorf(memory.EINVALID, "%s is not a bench qa answers file (its first line is no header); give another --out", a.path)
	}
	if err := sameRun(a.path, got, want); err != nil {
		return 0, err
	}
	for i, line := range lines[1:] {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r := &QARecord{}
		if err := json.Unmarshal(line, r); err != nil || r.Kind != "answer" || r.ID == "" {
			return 0, memory.Errorf(memory.EINVALID, "%s:%d: not an answer record; the file is damaged", a.path, i+2)
		}
		a.records[r.ID] = r
	}
	return end, nil
}

// sameRun returns an error naming the first setting in which the file's
// header got differs from this run's want.
func sameRun(path string, got, want QAHeader) error {
	fields := []struct{ name, got, want string }{
		{"version", fmt.Sprint(got.Version), fmt.Sprint(want.Version)},
		{"dataset format", got.Format, want.Format},
		{"dataset (SHA-256)", got.Data, want.Data},
		{"mode", got.Mode, want.Mode},
		{"reader", got.Reader, want.Reader},
		{"judge", got.Judge, want.Judge},
		{"reader prompt", got.ReaderPrompt, want.ReaderPrompt},
		{"judge prompt", got.JudgePrompt, want.JudgePrompt},
		{"recall limit", fmt.Sprint(got.Limit), fmt.Sprint(want.Limit)},
		{"recall budget", fmt.Sprint(got.Budget), fmt.Sprint(want.Budget)},
		{"engine", got.Engine, want.Engine},
	}
	for _, f := range fields {
		if f.got != f.want {
			return memory.Errorf(memory.ECONFLICT, "%s holds answers of another run: its %s is %q, this run's %q; resume it with the same dataset and settings, or give another --out",
				path, f.name, f.got, f.want)
		}
	}
	return nil
}

// Append writes r as one line and records it.
func (a *qaAnswers) Append(r *QARecord) error {
	r.Kind = "answer"
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writeLine(r); err != nil {
		return err
	}
	a.records[r.ID] = r
	return nil
}

// writeLine writes v as one JSON line in one write, so that a kill
// leaves at most a partial last line, which the next open cuts off.
func (a *qaAnswers) writeLine(v any) error {
	if a.f == nil {
		return nil // no file: the records are kept in memory only
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := a.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write answers file %s: %w", a.path, err)
	}
	return nil
}

// judged reports whether question id has a verdict in the file.
func (a *qaAnswers) judged(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.records[id]
	return r != nil && r.Verdict != ""
}

// record returns the file's record of question id, or nil.
func (a *qaAnswers) record(id string) *QARecord {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.records[id]
}

// Close closes the file.
func (a *qaAnswers) Close() error {
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// Package importer reads files into retain requests: JSONL chat
// transcripts and LoCoMo conversations (the benchmark's dataset too), and
// tells a file's format from its first bytes ([Detect]) for every adapter
// that takes files. It parses and validates; the engine retains, and bank
// exports are read by the engine itself. A bad line never stops an
// import: it is reported with its line number and the rest goes on.
package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// DefaultChatBatch is how many consecutive messages of a JSONL transcript
// make one document when the lines carry no session.
const DefaultChatBatch = 50

// maxLine bounds one JSONL line.
const maxLine = memory.MaxContentBytes

// Problem is an input line that could not become part of a request.
type Problem struct {
	Line int    `json:"line"`
	Err  string `json:"error"`
}

// chatLine is one line of a JSONL chat transcript.
type chatLine struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Time    string `json:"time"`
	ID      string `json:"id"`
	Session string `json:"session"`
}

// ChatJSONL reads a JSONL chat transcript — one message per line:
// {"speaker": …, "text": …, "time": …} with optional "id" and "session" —
// into retain requests for bank. Consecutive lines of one session (or, with
// no session, runs of DefaultChatBatch lines) make one document whose item
// id is name plus the session (or its first line number), so importing the
// same file again is a no-op. Item ids are unique within a file: a session
// that comes back after another one (or an id that would clash) gets its
// first line number appended, so no document of the file replaces another.
// Lines that are not valid messages, and lines longer than maxLine, are
// returned as problems; a UTF-8 byte order mark before the first line is
// dropped. A read error is returned as err with what was read so far.
//
// ChatJSONL holds every request of the file; ScanChatJSONL hands them
// over one at a time.
func ChatJSONL(r io.Reader, name, bank string) (reqs []memory.RetainRequest, problems []Problem, err error) {
	problems, err = ScanChatJSONL(r, name, bank, func(req memory.RetainRequest) error {
		reqs = append(reqs, req)
		return nil
	})
	return reqs, problems, err
}

// ScanChatJSONL reads a JSONL chat transcript as ChatJSONL does and calls
// emit with each request, in file order, as soon as its last line is
// read: the caller decides how many to hold. An error from emit stops
// the scan and is returned as is.
func ScanChatJSONL(r io.Reader, name, bank string, emit func(memory.RetainRequest) error) (problems []Problem, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var cur *memory.RetainRequest
	var curSession string
	used := map[string]bool{} // item ids given out so far
	flush := func() error {
		c := cur
		cur = nil
		if c != nil && len(c.Messages) > 0 {
			return emit(*c)
		}
		return nil
	}
	n := 0
	for {
		line, tooLong, rerr := readLine(br, maxLine)
		if rerr != nil && rerr != io.EOF {
			if err := flush(); err != nil {
				return problems, err
			}
			return problems, fmt.Errorf("read %s: %w", name, rerr)
		}
		if rerr == io.EOF && len(line) == 0 && !tooLong {
			break
		}
		n++
		if n == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if tooLong {
			problems = append(problems, Problem{Line: n, Err: fmt.Sprintf("longer than %d bytes", maxLine)})
			continue
		}
		raw := bytes.TrimSpace(line)
		if len(raw) == 0 {
			continue
		}
		m, err := parseChatLine(raw)
		if err != nil {
			problems = append(problems, Problem{Line: n, Err: err.Error()})
			continue
		}
		if cur != nil && (m.Session != curSession || (m.Session == "" && len(cur.Messages) >= DefaultChatBatch)) {
			if err := flush(); err != nil {
				return problems, err
			}
		}
		if cur == nil {
			item := fmt.Sprintf("%s#%d", name, n)
			if m.Session != "" {
				item = name + "#" + m.Session
			}
			if used[item] {
				base := fmt.Sprintf("%s@%d", item, n)
				item = base
				for i := 2; used[item]; i++ {
					item = fmt.Sprintf("%s.%d", base, i)
				}
			}
			used[item] = true
			cur = &memory.RetainRequest{BankID: bank, Source: memory.SourceChat, ItemID: item}
			curSession = m.Session
		}
		msg := memory.Message{ID: m.ID, Speaker: m.Speaker, Text: m.Text}
		if m.Time != "" {
			t, err := wire.ParseTime(m.Time)
			if err != nil {
				problems = append(problems, Problem{Line: n, Err: memory.ErrorMessage(err)})
				continue
			}
			msg.Time = t
			if cur.At.IsZero() {
				cur.At = t
			}
		}
		cur.Messages = append(cur.Messages, msg)
	}
	return problems, flush()
}

// utf8BOM is the byte order mark some editors put before UTF-8 text.
var utf8BOM = []byte("\xef\xbb\xbf")

// readLine returns the next line of br without its newline. A line longer
// than max bytes is read to its end and dropped: tooLong is true and line
// nil. err is io.EOF at the end of the input (with the last line, if it
// has no newline).
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > max+1 { // +1: the newline
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return bytes.TrimSuffix(buf, []byte("\n")), tooLong, nil
		default:
			return buf, tooLong, err
		}
	}
}

func parseChatLine(raw []byte) (*chatLine, error) {
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("not valid UTF-8")
	}
	var m chatLine
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON message: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	// More stops at a closing bracket: `{…}}` and `{…}]` end here.
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("unexpected %q after the JSON message", rest[:1])
	}
	if strings.TrimSpace(m.Text) == "" {
		return nil, fmt.Errorf(`"text" is missing or empty`)
	}
	return &m, nil
}

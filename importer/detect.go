package importer

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
)

// Format is a kind of file the importer reads. Its value is the name the
// CLI's --format flag takes.
type Format string

// The formats [Detect] tells apart.
const (
	// FormatChat is a JSONL chat transcript: one message a line, read by
	// [ChatJSONL].
	FormatChat Format = "jsonl"
	// FormatLoCoMo is a LoCoMo JSON list of conversations, read by
	// [ReadLoCoMo].
	FormatLoCoMo Format = "locomo"
	// FormatExport is a bank written by mnemo export, any version: JSON
	// lines whose first, the header, names the format's version and the
	// bank.
	FormatExport Format = "export"
	// FormatLongMemEval is a LongMemEval JSON list of questions with their
	// haystacks, read by [ReadLongMemEval].
	FormatLongMemEval Format = "longmemeval"
)

// DetectSize is how many first bytes of a file [Detect] needs: a bank
// export's first line must fit in them to be recognised.
const DetectSize = 64 << 10

// Detect tells which format a file is from its name (a path or a base
// name; "" when there is none) and head, its first bytes: DetectSize of
// them, or the whole file when it is shorter. In order:
//
//   - a first line that is a bank export's first record is FormatExport
//     (an export is JSON lines too, whatever the name);
//   - a name ending in ".jsonl" is FormatChat;
//   - a first non-blank byte '[' is FormatLongMemEval when the first
//     element has a "question_id" or "haystack_sessions" key before the
//     head ends, else FormatLoCoMo;
//   - a first non-blank byte '{' is FormatChat.
//
// Anything else, a blank head included, is EINVALID. Detect reads only
// head and never fails on a format it has recognised: the reader of that
// format judges the rest.
func Detect(name string, head []byte) (Format, error) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	if isExportHead(head) {
		return FormatExport, nil
	}
	if strings.HasSuffix(name, ".jsonl") {
		return FormatChat, nil
	}
	b := bytes.TrimLeft(head, " \t\r\n")
	if len(b) == 0 {
		return "", memory.Errorf(memory.EINVALID, "empty file")
	}
	switch b[0] {
	case '[':
		if isLongMemEvalHead(b) {
			return FormatLongMemEval, nil
		}
		return FormatLoCoMo, nil
	case '{':
		return FormatChat, nil
	}
	return "", memory.Errorf(memory.EINVALID, "not a JSONL chat transcript, a LoCoMo JSON file or a bank export")
}

// isExportHead reports whether head's first line is the first record of a
// bank export, of any format version, newer ones included (their reader
// says it cannot read them; they are no chat): {"type": "bank",
// "version": n, …} with n ≥ 1 (version 1), or {"kind": "header",
// "version": n, …} with n ≥ 2. A line longer than head is cut and so is
// not one.
func isExportHead(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	var rec struct {
		Kind    string `json:"kind"`
		Type    string `json:"type"` // version 1
		Version int    `json:"version"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return false
	}
	return rec.Kind == "" && rec.Type == "bank" && rec.Version >= 1 ||
		rec.Kind == "header" && rec.Version >= 2
}

// isLongMemEvalHead reports whether head, which starts with '[', opens a
// list whose first object has a LongMemEval key (question_id,
// haystack_sessions) among the keys that fit in head. LoCoMo's
// conversations have neither.
func isLongMemEvalHead(head []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return false
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if key, _ := t.(string); key == "question_id" || key == "haystack_sessions" {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false // the value runs past the head
		}
	}
	return false
}

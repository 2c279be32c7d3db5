package importer

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestDetect(t *testing.T) {
	exportV1 := `{"type":"bank","version":1,"bank":{"ID":"alice","Name":"alice"}}` + "\n" + `{"type":"document","document":{}}` + "\n"
	chat := `{"speaker": "Maya", "text": "I moved to Lisbon.", "time": "2024-03-04"}` + "\n"
	tests := []struct {
		name string
		file string
		head string
		want Format
	}{
		{"ChatByName", "chat.jsonl", chat, FormatChat},
		{"ChatByNameEmpty", "chat.jsonl", "", FormatChat},
		{"ChatByNameAnything", "dir/chat.jsonl", "not even JSON", FormatChat},
		{"ChatByContent", "chat.txt", chat, FormatChat},
		{"ChatNoName", "", "\n\t " + chat, FormatChat},
		{"LoCoMo", "locomo10.json", `[{"sample_id": "conv-26", "conversation": {}}]`, FormatLoCoMo},
		{"LoCoMoBlankFirst", "data", "\r\n  [", FormatLoCoMo},
		{"ExportV1", "alice.json", exportV1, FormatExport},
		{"ExportV1NamedJSONL", "alice.jsonl", exportV1, FormatExport},
		{"ExportOneLine", "alice", `{"type": "bank", "version": 1}`, FormatExport},
		{"ExportV1Version2", "alice.jsonl", `{"type":"bank","version":2}` + "\n", FormatExport},
		{"ExportV2", "alice.jsonl", `{"kind":"header","version":2,"bank":{"id":"alice","name":"alice"}}` + "\n" + `{"kind":"document","document":{}}` + "\n", FormatExport},
		{"ExportNewer", "alice.json", `{"kind":"header","version":9,"bank":{"id":"alice"}}`, FormatExport},
		{"HeaderVersion1", "alice.json", `{"kind":"header","version":1}` + "\n", FormatChat},
		{"HeaderAndType", "alice.json", `{"kind":"header","type":"bank","version":1}` + "\n", FormatChat},
		{"BankVersionZero", "alice.jsonl", `{"type":"bank","version":0}` + "\n", FormatChat},
		{"BankNoVersion", "alice.json", `{"type":"bank"}` + "\n", FormatChat},
		{"OtherTypeFirst", "alice.json", `{"type":"fact","version":1}` + "\n", FormatChat},
		{"ExportRecordNotFirst", "x.json", chat + `{"type":"bank","version":1}` + "\n", FormatChat},
		{"CutFirstLine", "x.json", `{"type":"bank","version":1,"bank":{"Name":"al`, FormatChat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(tt.file, []byte(tt.head))
			if err != nil {
				t.Fatalf("Detect(%q, %q): %v", tt.file, tt.head, err)
			}
			if got != tt.want {
				t.Errorf("Detect(%q, %q) = %q, want %q", tt.file, tt.head, got, tt.want)
			}
		})
	}
}

func TestDetect_Err(t *testing.T) {
	tests := []struct {
		name string
		file string
		head string
	}{
		{"Empty", "chat.json", ""},
		{"Blank", "chat.json", " \n\t\r\n"},
		{"Text", "notes.txt", "Maya moved to Lisbon.\n"},
		{"NumberList", "x.json", "42"},
		{"JSONLInName", "chat.jsonl.txt", "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(tt.file, []byte(tt.head))
			if err == nil {
				t.Fatalf("Detect(%q, %q) = %q, want an error", tt.file, tt.head, got)
			}
			if code := memory.ErrorCode(err); code != memory.EINVALID {
				t.Errorf("code: got %q, want %q", code, memory.EINVALID)
			}
		})
	}
}

// TestDetect_Fixture reads the head of the LoCoMo fixture as a caller does.
func TestDetect_Fixture(t *testing.T) {
	b, err := os.ReadFile(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > DetectSize {
		b = b[:DetectSize]
	}
	if got, err := Detect(tinyLoCoMo, b); err != nil || got != FormatLoCoMo {
		t.Errorf("got %q, %v, want %q", got, err, FormatLoCoMo)
	}
}

// FuzzDetect checks that Detect never panics, answers a known format or
// EINVALID, and calls an export only what begins with a header.
func FuzzDetect(f *testing.F) {
	f.Add("chat.jsonl", []byte(`{"text": "hi"}`))
	f.Add("x.json", []byte(`[{"sample_id": "a"}]`))
	f.Add("", []byte(`{"type":"bank","version":1}`+"\n"))
	f.Add("x", []byte(" \n"))
	f.Fuzz(func(t *testing.T, name string, head []byte) {
		got, err := Detect(name, head)
		if err != nil {
			if code := memory.ErrorCode(err); code != memory.EINVALID {
				t.Fatalf("error %v has code %q, want %q", err, code, memory.EINVALID)
			}
			return
		}
		switch got {
		case FormatChat, FormatLoCoMo:
		case FormatExport:
			if !bytes.Contains(head, []byte(`"bank"`)) && !bytes.Contains(head, []byte(`"header"`)) && !strings.Contains(string(head), `\u`) {
				t.Fatalf("export without a header: %q", head)
			}
		default:
			t.Fatalf("unknown format %q", got)
		}
	})
}

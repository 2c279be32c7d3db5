package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A transcript line of any shape is read without panicking; a message
// it gives has text and a speaker of the transcript's two.
func FuzzClaudeTranscriptLine(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", "claude-code", "transcript.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		f.Add(line)
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"text","text":1}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":null}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, ok := claudeTranscriptLine(line)
		if !ok {
			return
		}
		if strings.TrimSpace(msg.Text) == "" || (msg.Speaker != "user" && msg.Speaker != "assistant") {
			t.Errorf("line %q gave %+v", line, msg)
		}
	})
}

// A settings file that parses is written back with the same content:
// parse, format, parse again and format again give the same bytes, and
// the keys keep their order.
func FuzzParseObject(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", "claude-code", "settings.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"b":1,"a":[{"z":null,"y":true}],"c":"x & <y>","n":1.50e3}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			return
		}
		obj, err := parseObject(data)
		if err != nil {
			return
		}
		once, err := formatJSON(obj)
		if err != nil {
			t.Fatalf("format %q: %v", data, err)
		}
		again, err := parseObject(once)
		if err != nil {
			t.Fatalf("the formatted %q does not parse: %v", once, err)
		}
		twice, err := formatJSON(again)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("not stable:\n%s\n%s", once, twice)
		}
		if strings.Join(obj.keys, "\x00") != strings.Join(again.keys, "\x00") {
			t.Errorf("keys reordered: %q → %q", obj.keys, again.keys)
		}
	})
}

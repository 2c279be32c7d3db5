package importer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
)

// ScanChatJSONL hands over the requests ChatJSONL returns, in order, one
// at a time; an error of emit stops the scan there.
func TestScanChatJSONL(t *testing.T) {
	in := `{"speaker": "a", "text": "one", "session": "s1"}
{"speaker": "b", "text": "two", "session": "s1"}
not json
{"speaker": "a", "text": "three", "session": "s2"}
{"speaker": "a", "text": "four", "session": "s3"}
`
	want, wantProblems, err := importer.ChatJSONL(strings.NewReader(in), "f.jsonl", "b")
	if err != nil || len(want) != 3 || len(wantProblems) != 1 {
		t.Fatalf("ChatJSONL: %d requests, %v, %v", len(want), wantProblems, err)
	}
	var got []memory.RetainRequest
	problems, err := importer.ScanChatJSONL(strings.NewReader(in), "f.jsonl", "b", func(r memory.RetainRequest) error {
		got = append(got, r)
		return nil
	})
	if err != nil || len(problems) != 1 || problems[0] != wantProblems[0] {
		t.Fatalf("ScanChatJSONL: problems %v, %v", problems, err)
	}
	if len(got) != len(want) {
		t.Fatalf("ScanChatJSONL: %d requests, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ItemID != want[i].ItemID || len(got[i].Messages) != len(want[i].Messages) {
			t.Errorf("request %d: got %s (%d messages), want %s (%d)", i, got[i].ItemID, len(got[i].Messages), want[i].ItemID, len(want[i].Messages))
		}
	}
	stop := errors.New("stop")
	n := 0
	_, err = importer.ScanChatJSONL(strings.NewReader(in), "f.jsonl", "b", func(memory.RetainRequest) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("ScanChatJSONL stopped by emit: %d calls, %v; want 1 and the error", n, err)
	}
}

// ScanLoCoMo hands over the conversations ReadLoCoMo returns, in order;
// a malformed conversation fails after the ones before it were handed
// over, and an error of fn stops the scan.
func TestScanLoCoMo(t *testing.T) {
	conv := func(id string) string {
		return `{"sample_id": "` + id + `", "qa": [], "conversation": {"speaker_a": "A", "speaker_b": "B",
			"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}`
	}
	in := "[" + conv("c1") + "," + conv("c2") + "]"
	var ids []string
	if err := importer.ScanLoCoMo(strings.NewReader(in), func(c *importer.LoCoMoConversation) error {
		ids = append(ids, c.ID)
		return nil
	}); err != nil || strings.Join(ids, ",") != "c1,c2" {
		t.Fatalf("ScanLoCoMo: %q, %v", ids, err)
	}
	ids = nil
	bad := "[" + conv("c1") + "," + conv("c1") + "]"
	err := importer.ScanLoCoMo(strings.NewReader(bad), func(c *importer.LoCoMoConversation) error {
		ids = append(ids, c.ID)
		return nil
	})
	if err == nil || strings.Join(ids, ",") != "c1" {
		t.Errorf("ScanLoCoMo of a repeated sample_id: %q, %v; want c1 then an error", ids, err)
	}
	stop := errors.New("stop")
	if err := importer.ScanLoCoMo(strings.NewReader(in), func(*importer.LoCoMoConversation) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("ScanLoCoMo stopped by fn: %v, want the error", err)
	}
}

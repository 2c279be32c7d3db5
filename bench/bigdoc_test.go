package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/importer"
)

// A generated document is about the size asked, the same for the same
// seed, other for another seed, and made of paragraphs of sentences.
func TestWriteDocument(t *testing.T) {
	var a, b, c bytes.Buffer
	n, err := WriteDocument(&a, 20_000, 1)
	if err != nil || n != a.Len() {
		t.Fatalf("WriteDocument: %d bytes reported, %d written, %v", n, a.Len(), err)
	}
	if n < 20_000 || n > 22_000 {
		t.Errorf("WriteDocument(20000): %d bytes", n)
	}
	WriteDocument(&b, 20_000, 1)
	WriteDocument(&c, 20_000, 2)
	if a.String() != b.String() {
		t.Error("the same seed gave another document")
	}
	if a.String() == c.String() {
		t.Error("another seed gave the same document")
	}
	if paras := strings.Count(a.String(), "\n\n"); paras < 20 {
		t.Errorf("%d paragraphs in 20 kB, want many", paras)
	}
}

// A generated conversation file reads as LoCoMo: conversations of the
// sessions asked, every turn with text, ids unique.
func TestWriteConversations(t *testing.T) {
	var buf bytes.Buffer
	n, err := WriteConversations(&buf, 200_000, 4, 1)
	if err != nil || n != buf.Len() || n < 200_000 {
		t.Fatalf("WriteConversations: %d bytes reported, %d written, %v", n, buf.Len(), err)
	}
	d, err := importer.ReadLoCoMo(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("ReadLoCoMo: %v", err)
	}
	if len(d.Conversations) < 2 {
		t.Fatalf("%d conversations, want several", len(d.Conversations))
	}
	seen := map[string]bool{}
	for _, c := range d.Conversations[:len(d.Conversations)-1] {
		if len(c.Sessions) != 4 {
			t.Errorf("conversation %s: %d sessions, want 4", c.ID, len(c.Sessions))
		}
		for _, turn := range c.Memories() {
			if turn.Text == "" || seen[turn.ID] {
				t.Errorf("turn %s: empty or repeated", turn.ID)
			}
			seen[turn.ID] = true
		}
	}
	if _, err := WriteConversations(&buf, 10, 0, 1); err == nil {
		t.Error("WriteConversations with 0 sessions: no error")
	}
}

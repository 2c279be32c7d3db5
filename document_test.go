package mnemo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

func TestDocument(t *testing.T) {
	ctx := context.Background()
	e := open(t, mnemo.Config{})
	text := "Alice moved to Lisbon in May. She works at a bakery near the river."
	if _, err := e.Retain(ctx, memory.RetainRequest{Text: text, Speaker: "Alice", Source: memory.SourceAPI, ItemID: "note-1"}); err != nil {
		t.Fatal(err)
	}
	d, chunks, err := e.Document(ctx, "", memory.SourceAPI, "note-1")
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	if d.ItemID != "note-1" || d.BankID != memory.DefaultBank || !strings.Contains(d.Content, "Lisbon") {
		t.Errorf("Document = %+v, want note-1 of the default bank holding the text", d)
	}
	if len(chunks) == 0 {
		t.Fatal("Document: no chunks")
	}
	var joined strings.Builder
	for i, c := range chunks {
		if c.Index != i || c.DocumentID != d.ID {
			t.Errorf("chunk %d = index %d of %s, want index %d of %s", i, c.Index, c.DocumentID, i, d.ID)
		}
		joined.WriteString(c.Text)
	}
	if !strings.Contains(joined.String(), "bakery") {
		t.Errorf("chunks %q do not hold the text", joined.String())
	}
	for _, c := range []struct{ bank, item string }{{"", "nope"}, {"nobank", "note-1"}} {
		if _, _, err := e.Document(ctx, c.bank, memory.SourceAPI, c.item); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Errorf("Document(%q, %q): err %v, want ENOTFOUND", c.bank, c.item, err)
		}
	}
}

package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// facts counts the facts of bank.
func facts(t *testing.T, eng *mnemo.Engine, bank string) int {
	t.Helper()
	st, err := eng.Stats(t.Context(), bank)
	if err != nil {
		t.Fatal(err)
	}
	return st.Facts
}

func TestServer_RetainApproval(t *testing.T) {
	t.Run("Confirm", func(t *testing.T) {
		eng := openEngine(t)
		cs := connect(t, mcpserver.New(eng, mcpserver.Options{RequireApproval: true}), nil)
		args := map[string]any{"text": "Carol's birthday is on 3 March."}
		out := retain(t, cs, args)
		if out.Stored || !out.Pending || !strings.Contains(out.Message, "confirm=true") || !strings.Contains(out.Message, "3 March") {
			t.Fatalf("unconfirmed retain = %+v, want pending with the text and how to confirm", out)
		}
		if _, err := eng.Bank(t.Context(), "default"); err == nil && facts(t, eng, "default") != 0 {
			t.Fatal("a pending retain stored facts")
		}
		args["confirm"] = true
		if out := retain(t, cs, args); !out.Stored || out.Result == nil || out.Result.Facts == 0 {
			t.Fatalf("confirmed retain = %+v, want stored", out)
		}
		if n := facts(t, eng, "default"); n == 0 {
			t.Error("the confirmed retain stored nothing")
		}
	})
	for _, c := range []struct {
		action string
		stored bool
	}{{"accept", true}, {"decline", false}, {"cancel", false}} {
		t.Run("Elicit/"+c.action, func(t *testing.T) {
			eng := openEngine(t)
			var asked string
			cs := connect(t, mcpserver.New(eng, mcpserver.Options{RequireApproval: true}), &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = req.Params.Message
					return &mcp.ElicitResult{Action: c.action}, nil
				},
			})
			// confirm=true does not bypass a client that can ask its user.
			out := retain(t, cs, map[string]any{"text": "Dan drinks his coffee black.", "confirm": true})
			if !strings.Contains(asked, "coffee black") {
				t.Errorf("the user was asked %q, want the text to store", asked)
			}
			if out.Stored != c.stored || out.Pending {
				t.Fatalf("retain after %s = %+v, want stored %v", c.action, out, c.stored)
			}
			n := 0
			if _, err := eng.Bank(t.Context(), "default"); err == nil {
				n = facts(t, eng, "default")
			}
			if (n > 0) != c.stored {
				t.Errorf("after %s the bank holds %d facts", c.action, n)
			}
		})
	}
}

func TestServer_KeyBank(t *testing.T) {
	eng := openEngine(t)
	for _, b := range []string{"a", "b"} {
		if _, err := eng.CreateBank(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	// The other bank holds a secret the key for a must never see.
	if _, err := eng.Retain(t.Context(), mnemoRetain("b", "The vault code of bank b is 4711.")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(eng, mcpserver.Options{
		Bank:    "b", // the server's default loses to the key's bank
		KeyBank: func(context.Context, *mcp.CallToolRequest) (string, bool) { return "a", true },
	}), nil)

	out := retain(t, cs, map[string]any{"text": "Erin works at the harbour."})
	if out.Bank != "a" || !out.Stored {
		t.Fatalf("retain without a bank = %+v, want stored in the key's bank a", out)
	}
	if out := retain(t, cs, map[string]any{"text": "Erin works at the harbour.", "bank": "a"}); out.Bank != "a" {
		t.Errorf("retain naming the key's own bank = %+v", out)
	}
	_, page := recall(t, cs, map[string]any{"query": "vault code"})
	for _, r := range page.Results {
		if strings.Contains(r.Text, "4711") {
			t.Errorf("the key for a recalled bank b's fact %q", r.Text)
		}
	}
	// Naming another bank, existing or not, reads the same: unknown.
	for _, tool := range []string{"retain", "remember", "recall", "forget", "about", "block_read", "block_write"} {
		var msgs []string
		for _, bank := range []string{"b", "nowhere"} {
			res := call(t, cs, tool, toolArgs(tool, bank))
			if !res.IsError || !strings.Contains(text(res), "unknown bank") {
				t.Fatalf("%s in bank %s with a key for a: %s", tool, bank, text(res))
			}
			msgs = append(msgs, strings.Replace(text(res), `"`+bank+`"`, `"X"`, 1))
		}
		if msgs[0] != msgs[1] {
			t.Errorf("%s: an existing other bank reads %q, an unknown one %q", tool, msgs[0], msgs[1])
		}
	}
	if n := facts(t, eng, "b"); n != 1 {
		t.Errorf("bank b holds %d facts, want its one", n)
	}
}

// mnemoRetain is a plain retain request.
func mnemoRetain(bank, text string) memory.RetainRequest {
	return memory.RetainRequest{BankID: bank, Text: text}
}

// toolArgs are valid arguments of tool naming bank.
func toolArgs(tool, bank string) map[string]any {
	switch tool {
	case "recall":
		return map[string]any{"query": "vault code", "bank": bank}
	case "forget":
		return map[string]any{"query": "vault code", "bank": bank, "confirm": true}
	case "about":
		return map[string]any{"name": "vault", "bank": bank}
	case "block_read":
		return map[string]any{"name": "persona", "bank": bank}
	case "block_write":
		return map[string]any{"name": "persona", "text": "Erin's agent.", "bank": bank}
	}
	return map[string]any{"text": "Erin moved to Oslo.", "bank": bank}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// mnemo directives add, list, edit and rm, and mnemo context showing the
// directives of its scope, in every format, within its budget.
func TestContextAndDirectives(t *testing.T) {
	db := emptyDB(t)
	mustRun(t, db, "bank", "create", "w")
	global := strings.TrimSpace(mustRun(t, db, "--bank", "w", "directives", "add", "Answer in British English."))
	scoped := strings.TrimSpace(mustRun(t, db, "--bank", "w", "directives", "add", "--scope", "web", "Never push to main on Fridays."))
	if !strings.HasPrefix(global, "dir_") || !strings.HasPrefix(scoped, "dir_") || global == scoped {
		t.Fatalf("ids %q %q", global, scoped)
	}
	list := mustRun(t, db, "--bank", "w", "directives", "list")
	if !strings.Contains(list, "(everywhere)") || !strings.Contains(list, "web") {
		t.Errorf("list:\n%s", list)
	}
	var dl struct {
		Directives []struct {
			ID        string   `json:"id"`
			Bank      string   `json:"bank"`
			Text      string   `json:"text"`
			Scopes    []string `json:"scopes"`
			CreatedAt string   `json:"created_at"`
			UpdatedAt string   `json:"updated_at"`
		} `json:"directives"`
	}
	decodeStrict(t, mustRun(t, db, "--bank", "w", "--json", "directives", "list", "--scope", "api"), &dl)
	if len(dl.Directives) != 1 || dl.Directives[0].ID != global || dl.Directives[0].Scopes == nil {
		t.Errorf("list --scope api: %+v", dl)
	}
	mustRun(t, db, "--bank", "w", "retain", "Alice adopted a puppy named Rex.")
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"context"}, []string{"Directives (always follow these):\n- Answer in British English.\n"}, []string{"Fridays", "Rex"}},
		{[]string{"context", "--scope", "web"}, []string{"Answer in British English.", "Never push to main on Fridays. [web]"}, nil},
		{[]string{"context", "--query", "what is the puppy called?", "--format", "markdown"}, []string{"## Directives", "## Relevant memories", "Rex"}, []string{"Fridays"}},
	} {
		out := mustRun(t, db, append([]string{"--bank", "w"}, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v lacks %q:\n%s", c.args, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%v has %q:\n%s", c.args, n, out)
			}
		}
	}
	out := mustRun(t, db, "--bank", "w", "--json", "context", "--budget", "40")
	var ctx struct {
		Bank     string `json:"bank"`
		Budget   int    `json:"budget"`
		Sections []struct {
			Name  string            `json:"name"`
			Items []json.RawMessage `json:"items"`
		} `json:"sections"`
	}
	decodeStrict(t, out, &ctx)
	if ctx.Bank != "w" || ctx.Budget != 40 || (len(out)+3)/4 > 40 {
		t.Errorf("json context over its budget of 40 tokens (%d bytes):\n%s", len(out), out)
	}
	mustRun(t, db, "--bank", "w", "directives", "edit", scoped, "--everywhere")
	if out := mustRun(t, db, "--bank", "w", "context"); !strings.Contains(out, "Fridays") {
		t.Errorf("a directive made global is not shown everywhere:\n%s", out)
	}
	mustRun(t, db, "--bank", "w", "directives", "rm", scoped)
	wantFailure(t, mnemoRun(t, db, "--bank", "w", "directives", "rm", scoped), exitNotFound, "no directive")
	wantFailure(t, mnemoRun(t, db, "--bank", "w", "directives", "add", "--scope", "a b", "x"), exitInvalid, "scope")
	wantFailure(t, mnemoRun(t, db, "--bank", "w", "directives", "edit", global), exitInvalid, "nothing to change")
	wantFailure(t, mnemoRun(t, db, "--bank", "w", "context", "--format", "yaml"), exitInvalid, "format")
	wantFailure(t, mnemoRun(t, db, "--bank", "w", "context", "--budget", "-3"), exitInvalid, "budget")
	wantFailure(t, mnemoRun(t, db, "--bank", "nobank", "context"), exitNotFound)
}

package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// Directives through the API, and GET …/context answering the bytes the
// façade renders, behind the same key checks as every bank route.
func TestServer_ContextAndDirectives(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for _, b := range []string{"a", "b"} {
		e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: b}, nil)
	}
	var d wire.Directive
	e.must(http.StatusCreated, keyAAdmin, "POST", "/v1/banks/a/directives", map[string]any{"text": "Answer in British English."}, &d)
	var web wire.Directive
	e.must(http.StatusCreated, keyAAdmin, "POST", "/v1/banks/a/directives", map[string]any{"text": "Never push on Fridays.", "scopes": []string{"web"}}, &web)
	if d.Bank != "a" || len(d.Scopes) != 0 || web.Scopes[0] != "web" {
		t.Fatalf("added %+v %+v", d, web)
	}
	var list wire.DirectiveList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/directives?scope=api", nil, &list)
	if len(list.Directives) != 1 || list.Directives[0].ID != d.ID {
		t.Errorf("directives for scope api: %+v", list)
	}
	text := "Never push to main on Fridays."
	var edited wire.Directive
	e.must(http.StatusOK, keyAAdmin, "PATCH", "/v1/banks/a/directives/"+web.ID, map[string]any{"text": text}, &edited)
	if edited.Text != text || edited.Scopes[0] != "web" {
		t.Errorf("edited %+v", edited)
	}

	for _, f := range []string{memory.FormatText, memory.FormatMarkdown, memory.FormatJSON} {
		want, err := e.eng.Context(t.Context(), "a", mnemo.ContextRequest{Format: f, Scopes: []string{"web"}, Budget: 300})
		if err != nil {
			t.Fatal(err)
		}
		status, body := e.do(keyARead, "GET", "/v1/banks/a/context?scope=web&budget=300&format="+f, nil)
		if status != http.StatusOK || string(body) != want.Text {
			t.Errorf("context %s: status %d\n%s\nwant\n%s", f, status, body, want.Text)
		}
		if !strings.Contains(string(body), "Fridays") {
			t.Errorf("context %s for scope web lacks its directive:\n%s", f, body)
		}
	}
	status, body := e.do(keyARead, "GET", "/v1/banks/a/context?query="+url.QueryEscape("anything"), nil)
	if status != http.StatusOK || strings.Contains(string(body), "Fridays") || !strings.Contains(string(body), "British") {
		t.Errorf("context without scope: %d\n%s", status, body)
	}
	e.fails("bad format", http.StatusUnprocessableEntity, memory.EINVALID, keyARead, "GET", "/v1/banks/a/context?format=yaml", nil)
	// Another bank answers as one that does not exist (isolation_test.go).
	e.fails("other bank's context", http.StatusNotFound, memory.ENOTFOUND, keyARead, "GET", "/v1/banks/b/context", nil)
	e.fails("other bank's directives", http.StatusNotFound, memory.ENOTFOUND, keyAAdmin, "POST", "/v1/banks/b/directives", map[string]any{"text": "x"})
	e.fails("read key adding", http.StatusForbidden, memory.EFORBIDDEN, keyARead, "POST", "/v1/banks/a/directives", map[string]any{"text": "x"})
	e.fails("bad scope", http.StatusBadRequest, memory.EINVALID, keyAAdmin, "POST", "/v1/banks/a/directives", map[string]any{"text": "x", "scopes": []string{"a b"}})
	var del wire.Deleted
	e.must(http.StatusOK, keyAAdmin, "DELETE", "/v1/banks/a/directives/"+web.ID, nil, &del)
	e.fails("deleted directive", http.StatusNotFound, memory.ENOTFOUND, keyAAdmin, "DELETE", "/v1/banks/a/directives/"+web.ID, nil)
}

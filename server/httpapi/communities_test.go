package httpapi_test

import (
	"bytes"
	"net/http"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServer_Communities lists the communities the communities pass
// found in a bank of two groups of friends, with the same key checks as
// every bank route: a read key of the bank reads them, a key of another
// bank gets the answer of an unknown bank, and no key gets nothing.
func TestServer_Communities(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "b"}, nil)
	var list wire.CommunityList
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/communities", nil, &list)
	if list.Communities == nil || len(list.Communities) != 0 {
		t.Errorf("communities before any pass: %+v, want an empty list", list)
	}
	for i, text := range []string{
		"Alice, Bruno and Chiara went climbing at Arco.",
		"Bruno and Chiara cooked dinner for Alice.",
		"Alice told Chiara and Bruno about Arco.",
		"Dmitri, Elena and Farid play chess at Kaissa.",
		"Elena beat Dmitri and Farid at Kaissa.",
		"Farid and Dmitri watched Elena at Kaissa.",
	} {
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: text, Source: "note", ItemID: string(rune('a' + i))}, nil)
	}
	var run wire.Run
	e.must(http.StatusOK, keyAAdmin, "POST", "/v1/banks/a/consolidate", wire.Consolidate{Pass: "communities"}, &run)
	if run.Status != memory.RunOK || run.Counts["recomputed"] != 1 {
		t.Fatalf("communities run: %+v", run)
	}
	e.must(http.StatusOK, keyARead, "GET", "/v1/banks/a/communities", nil, &list)
	if len(list.Communities) != 2 {
		t.Fatalf("communities: %+v, want the two groups", list.Communities)
	}
	for _, c := range list.Communities {
		if c.Size != len(c.Members) || c.Size < 3 || len(c.Representatives) == 0 || c.Name == "" || c.SummarizedAt != nil || c.SourceFactIDs == nil {
			t.Errorf("community %+v", c)
		}
		if !slices.ContainsFunc(c.Members, func(m wire.CommunityMember) bool { return m.EntityID == c.Representatives[0] }) {
			t.Errorf("community %s: representative %s is no member", c.ID, c.Representatives[0])
		}
	}
	if a, b := list.Communities[0], list.Communities[1]; slices.ContainsFunc(a.Members, func(m wire.CommunityMember) bool {
		return slices.ContainsFunc(b.Members, func(n wire.CommunityMember) bool { return n.EntityID == m.EntityID })
	}) {
		t.Errorf("the two communities share members: %+v", list.Communities)
	}

	// Another bank's key: the answer of an unknown bank, nothing of a's.
	status, body := e.do(keyARead, "GET", "/v1/banks/b/communities", nil)
	e.wantError("a's key on b", status, body, http.StatusNotFound, memory.ENOTFOUND)
	_, unknown := e.do(keyARead, "GET", "/v1/banks/zz/communities", nil)
	want := bytes.ReplaceAll(unknown, []byte(`"zz"`), []byte(`"b"`))
	if want = bytes.ReplaceAll(want, []byte(`\"zz\"`), []byte(`\"b\"`)); !bytes.Equal(body, want) {
		t.Errorf("bank b answers\n%s\nbut an unknown bank answers\n%s", body, unknown)
	}
	e.fails("no key", http.StatusUnauthorized, memory.EUNAUTHORIZED, "", "GET", "/v1/banks/a/communities", nil)
	e.fails("unknown bank", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/nope/communities", nil)
}

package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// TestServer_Curation drives the curation routes end to end: facts
// (list, get, invalidate, restore), about, entities and relations, blocks,
// and forget with its audit log.
func TestServer_Curation(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "alice"}, nil)
	var res wire.RetainResult
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/memories", wire.Retain{
		Text: "Alice moved to Lisbon in May 2024.", Speaker: "Alice", OccurredAt: "2024-06-01", Source: "note", ItemID: "n1", Tags: []string{"move"},
	}, &res)
	if len(res.Outcomes) == 0 || res.Outcomes[0].FactID == "" {
		t.Fatalf("retain result has no per-fact outcomes: %+v", res)
	}
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/memories", wire.Retain{Text: "Alice adopted a cat named Miso.", Source: "note", ItemID: "n2"}, nil)

	var page wire.FactPage
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/facts", nil, &page)
	if len(page.Facts) < 2 {
		t.Fatalf("facts = %+v, want both items' facts", page.Facts)
	}
	lisbon := page.Facts[slices.IndexFunc(page.Facts, func(f wire.Fact) bool { return strings.Contains(f.Text, "Lisbon") })].ID

	t.Run("Facts", func(t *testing.T) {
		var p wire.FactPage
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/facts?tags=move", nil, &p)
		if len(p.Facts) == 0 || slices.ContainsFunc(p.Facts, func(f wire.Fact) bool { return !slices.Contains(f.Tags, "move") }) {
			t.Errorf("tags=move lists %+v", p.Facts)
		}
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/facts?limit=1", nil, &p)
		if len(p.Facts) != 1 || p.Next == "" {
			t.Fatalf("limit=1 page = %+v, want one fact and a cursor", p)
		}
		first := p.Facts[0].ID
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/facts?limit=1&cursor="+url.QueryEscape(p.Next), nil, &p)
		if len(p.Facts) != 1 || p.Facts[0].ID == first {
			t.Errorf("second page = %+v, want another fact than %s", p.Facts, first)
		}
		e.fails("bad kind", http.StatusBadRequest, memory.EINVALID, keyRoot, "GET", "/v1/banks/alice/facts?kinds=dream", nil)
		e.fails("bad from", http.StatusBadRequest, memory.EINVALID, keyRoot, "GET", "/v1/banks/alice/facts?from=yesterday-ish", nil)
		e.fails("unknown parameter", http.StatusUnprocessableEntity, memory.EINVALID, keyRoot, "GET", "/v1/banks/alice/facts?colour=red", nil)

		var d wire.FactDetail
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/facts/"+lisbon, nil, &d)
		if d.Fact.ID != lisbon || !strings.Contains(d.Fact.Text, "Lisbon") {
			t.Errorf("fact = %+v", d.Fact)
		}
		e.fails("unknown fact", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice/facts/nope", nil)

		var ch wire.StatusChange
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/facts/invalidate", wire.InvalidateFacts{IDs: []string{lisbon}, Reason: "wrong city"}, &ch)
		if !slices.Equal(ch.Changed, []string{lisbon}) || ch.Status != memory.StatusArchived {
			t.Errorf("invalidate = %+v", ch)
		}
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/facts/"+lisbon, nil, &d)
		if d.Fact.Status != memory.StatusArchived {
			t.Errorf("invalidated fact is %s", d.Fact.Status)
		}
		e.fails("invalidate unknown", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "POST", "/v1/banks/alice/facts/invalidate", `{"ids":["nope"]}`)
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/facts/restore", wire.FactIDs{IDs: []string{lisbon}}, &ch)
		if !slices.Equal(ch.Changed, []string{lisbon}) || ch.Status != memory.StatusActive {
			t.Errorf("restore = %+v", ch)
		}
		e.fails("restore nothing", http.StatusUnprocessableEntity, memory.EINVALID, keyRoot, "POST", "/v1/banks/alice/facts/restore", `{"ids":[]}`)
	})

	t.Run("Graph", func(t *testing.T) {
		var ent wire.Entity
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/entities", wire.UpsertEntity{Name: "Acme Corp", Type: "organization", Aliases: []string{"Acme"}}, &ent)
		if ent.Name != "Acme Corp" || ent.ID == "" {
			t.Fatalf("upsert = %+v", ent)
		}
		var got wire.Entity
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/entities/"+ent.ID, nil, &got)
		if got.ID != ent.ID || !slices.Contains(got.Aliases, "Acme") {
			t.Errorf("entity = %+v", got)
		}
		e.fails("unknown entity", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice/entities/nope", nil)
		e.fails("entity without a name", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/alice/entities", `{"name":"  "}`)
		var ep wire.EntityPage
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/entities?type=organization", nil, &ep)
		if !slices.ContainsFunc(ep.Entities, func(x wire.Entity) bool { return x.ID == ent.ID }) {
			t.Errorf("organizations = %+v, want Acme Corp", ep.Entities)
		}
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/entities", wire.UpsertEntity{Name: "Alice", Type: "person"}, nil)
		var rel wire.Relation
		e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks/alice/relations", wire.AddRelation{Subject: "Alice", Predicate: "works_at", Object: "Acme", ValidFrom: "2024-01-01", FactIDs: []string{lisbon}}, &rel)
		if rel.Object != ent.ID || rel.Predicate != "works_at" || !rel.Current {
			t.Fatalf("relation = %+v", rel)
		}
		e.fails("relation to nobody", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "POST", "/v1/banks/alice/relations", `{"subject":"Alice","predicate":"knows","object":"Nobody Known"}`)
		var rl wire.RelationList
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/relations?object="+ent.ID, nil, &rl)
		if len(rl.Relations) != 1 || rl.Relations[0].ID != rel.ID {
			t.Errorf("relations to Acme = %+v", rl.Relations)
		}
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/relations?predicate=knows", nil, &rl)
		if len(rl.Relations) != 0 {
			t.Errorf("relations knows = %+v, want none", rl.Relations)
		}
		var ab wire.About
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/about/Acme%20Corp", nil, &ab)
		if ab.Entity.ID != ent.ID || len(ab.Relations) != 1 || ab.Relations[0].SubjectName != "Alice" {
			t.Errorf("about Acme Corp = %+v", ab)
		}
		e.fails("about nobody", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice/about/Nobody", nil)
	})

	t.Run("Blocks", func(t *testing.T) {
		var bl wire.BlockList
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/blocks", nil, &bl)
		if len(bl.Blocks) != len(memory.DefaultBlocks) {
			t.Errorf("blocks = %d, want the %d defaults", len(bl.Blocks), len(memory.DefaultBlocks))
		}
		var b wire.Block
		e.must(http.StatusOK, keyRoot, "PUT", "/v1/banks/alice/blocks/todo", wire.WriteBlock{Value: "buy milk", MaxChars: 30, Label: "errands"}, &b)
		if b.Value != "buy milk" || b.MaxChars != 30 || b.Label != "errands" {
			t.Errorf("write = %+v", b)
		}
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/blocks/todo/append", wire.AppendBlock{Text: "call Bob"}, &b)
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/blocks/todo/replace", wire.ReplaceBlock{Old: "milk", New: "oat milk"}, &b)
		want := b.Value
		if !strings.Contains(want, "oat milk") || !strings.Contains(want, "call Bob") {
			t.Errorf("after append and replace: %q", want)
		}
		e.fails("past the limit", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/alice/blocks/todo/append", `{"text":"and a very long list of more things"}`)
		e.fails("replace absent", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/alice/blocks/todo/replace", `{"old":"bread","new":"rye"}`)
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/blocks/todo", nil, &b)
		if b.Value != want {
			t.Errorf("refused edits changed the block: %q, want %q", b.Value, want)
		}
		e.fails("bad name", http.StatusBadRequest, memory.EINVALID, keyRoot, "GET", "/v1/banks/alice/blocks/Bad%20Name!", nil)
		e.must(http.StatusOK, keyRoot, "DELETE", "/v1/banks/alice/blocks/todo", nil, nil)
		e.fails("deleted block", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice/blocks/todo", nil)
	})

	t.Run("Forget", func(t *testing.T) {
		var f wire.Forget
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/forget", wire.ForgetRequest{Query: "cat Miso", Limit: 1, DryRun: true}, &f)
		if !f.DryRun || len(f.Facts) != 1 || f.Facts[0].Text == "" {
			t.Fatalf("dry run = %+v, want one fact with its text", f)
		}
		before := e.stats("alice")
		if before.Facts == 0 {
			t.Fatal("no facts")
		}
		e.fails("no selector", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/alice/forget", `{}`)
		e.fails("bad time", http.StatusBadRequest, memory.EINVALID, keyRoot, "POST", "/v1/banks/alice/forget", `{"from":"someday"}`)
		e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/alice/forget", wire.ForgetRequest{IDs: []string{lisbon}}, &f)
		if f.DryRun || f.Counts.Facts != 1 || f.Record == "" {
			t.Fatalf("forget = %+v, want one fact gone and a record", f)
		}
		e.fails("forgotten fact", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/alice/facts/"+lisbon, nil)
		if after := e.stats("alice"); after.Facts != before.Facts-1 {
			t.Errorf("facts %d → %d, want one fewer", before.Facts, after.Facts)
		}
		var log wire.ForgetLog
		e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/alice/forget/log", nil, &log)
		if len(log.Records) != 1 || log.Records[0].ID != f.Record || log.Records[0].Actor != "root" || log.Records[0].Selector.IDs != 1 {
			t.Errorf("forget log = %+v, want the record by key root", log.Records)
		}
	})
}

// TestServer_BadInputCuration sends bad bodies and unknown banks to every
// curation route: each gets its status and the one error shape, and
// nothing is written.
func TestServer_BadInputCuration(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	e.must(http.StatusCreated, keyRoot, "POST", "/v1/banks", wire.CreateBank{Name: "a"}, nil)
	e.must(http.StatusOK, keyRoot, "POST", "/v1/banks/a/memories", wire.Retain{Text: "Alice likes green tea."}, nil)
	e.must(http.StatusOK, keyRoot, "PUT", "/v1/banks/a/blocks/persona", wire.WriteBlock{Value: "calm"}, nil)
	before := e.stats("a")
	var blocksBefore wire.BlockList
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/a/blocks", nil, &blocksBefore)
	writes := []struct{ method, path, good string }{
		{"POST", "/v1/banks/%s/forget", `{"query":"tea"}`},
		{"POST", "/v1/banks/%s/facts/invalidate", `{"ids":["x"]}`},
		{"POST", "/v1/banks/%s/facts/restore", `{"ids":["x"]}`},
		{"POST", "/v1/banks/%s/entities", `{"name":"Bob"}`},
		{"POST", "/v1/banks/%s/relations", `{"subject":"Alice","predicate":"knows","object":"Bob"}`},
		{"PUT", "/v1/banks/%s/blocks/persona", `{"value":"tense"}`},
		{"POST", "/v1/banks/%s/blocks/persona/append", `{"text":"tense"}`},
		{"POST", "/v1/banks/%s/blocks/persona/replace", `{"old":"calm","new":"tense"}`},
		{"POST", "/v1/keys", `{"bank":"a","scope":"read"}`},
	}
	for _, w := range writes {
		path := strings.ReplaceAll(w.path, "%s", "a")
		body := w.good
		for _, c := range []struct {
			name   string
			body   string
			status int
		}{
			{"malformed JSON", body[:len(body)-2], http.StatusBadRequest},
			{"unknown field", body[:len(body)-1] + `,"colour":"red"}`, http.StatusUnprocessableEntity},
			{"invalid UTF-8", body[:strings.LastIndex(body, `"`)] + "\xff" + body[strings.LastIndex(body, `"`):], http.StatusBadRequest},
			{"not an object", `["x"]`, http.StatusUnprocessableEntity},
		} {
			e.fails(c.name+" "+w.method+" "+path, c.status, memory.EINVALID, keyRoot, w.method, path, c.body)
		}
		if strings.Contains(w.path, "%s") {
			e.fails("unknown bank "+w.method+" "+w.path, http.StatusNotFound, memory.ENOTFOUND, keyRoot, w.method, strings.ReplaceAll(w.path, "%s", "nope"), body)
		}
	}
	for _, path := range []string{"/forget/log", "/facts", "/facts/x", "/about/Alice", "/entities", "/entities/x", "/relations", "/blocks", "/blocks/persona"} {
		e.fails("unknown bank GET "+path, http.StatusNotFound, memory.ENOTFOUND, keyRoot, "GET", "/v1/banks/nope"+path, nil)
	}
	e.fails("unknown bank DELETE block", http.StatusNotFound, memory.ENOTFOUND, keyRoot, "DELETE", "/v1/banks/nope/blocks/persona", nil)

	if after := e.stats("a"); after != before {
		t.Errorf("bad requests changed bank a: %+v → %+v", before, after)
	}
	var blocksAfter wire.BlockList
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks/a/blocks", nil, &blocksAfter)
	if !slices.EqualFunc(blocksBefore.Blocks, blocksAfter.Blocks, func(x, y wire.Block) bool { return x.Value == y.Value && x.Writes == y.Writes }) {
		t.Errorf("bad requests changed the blocks: %+v → %+v", blocksBefore.Blocks, blocksAfter.Blocks)
	}
	if log, _ := e.eng.ForgetLog(t.Context(), "a", 0); len(log) != 0 {
		t.Errorf("bad requests forgot: %+v", log)
	}
	if ks, _ := e.eng.Keys(t.Context(), ""); len(ks) != 0 {
		t.Errorf("bad requests made keys: %+v", ks)
	}
	var list wire.BankList
	e.must(http.StatusOK, keyRoot, "GET", "/v1/banks", nil, &list)
	if len(list.Banks) != 1 {
		t.Errorf("bad requests created banks: %+v", list.Banks)
	}
}

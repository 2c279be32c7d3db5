package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// Five mnemo processes retain "I moved to …" at once, each superseding
// the same lives_in edge, through a scripted model that takes a moment
// to judge (so that every process reads the old edge before any
// writes). Exactly one edge ends current, the others closed, with one
// close each in relation_closes: the database let each edge be closed
// once, and the processes that lost resolved again.
func TestProcesses_OneCurrentEdge(t *testing.T) {
	bin := binary(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	city := regexp.MustCompile(`(?:moved to|live in) ([A-Z][a-z]+)`)
	existing := regexp.MustCompile(`EXISTING (\S+): Tom lives in`)
	user := func(r llmtest.Request) string { return r.Messages[len(r.Messages)-1].Content }
	srv.On(llmtest.Rule{Schema: "extraction", Respond: func(r llmtest.Request) llmtest.Reply {
		m := city.FindStringSubmatch(user(r))
		if m == nil {
			return llmtest.Reply{JSON: map[string]any{"facts": []any{}}}
		}
		return llmtest.Reply{JSON: map[string]any{"facts": []any{map[string]any{
			"text": "Tom lives in " + m[1], "kind": "experience", "category": "personal", "confidence": 0.9, "importance": 0.7,
			"sensitivity": "open", "speaker": "Tom", "message": 1, "evidence": m[0], "occurred_start": "", "occurred_end": "",
			"entities":  []any{map[string]any{"name": "Tom", "type": "person", "confidence": 0.9}, map[string]any{"name": m[1], "type": "place", "confidence": 0.9}},
			"relations": []any{map[string]any{"subject": "Tom", "predicate": "lives_in", "object": m[1], "confidence": 0.9}},
			"causes":    []any{},
		}}}}
	}})
	srv.On(llmtest.Rule{Schema: "conflicts", Respond: func(r llmtest.Request) llmtest.Reply {
		time.Sleep(300 * time.Millisecond)
		if m := existing.FindStringSubmatch(user(r)); m != nil {
			return llmtest.Reply{JSON: map[string]any{"decisions": []any{map[string]any{"fact": 0, "action": "update", "existing": m[1], "reason": "moved"}}}}
		}
		return llmtest.Reply{JSON: map[string]any{"decisions": []any{}}}
	}})
	db := newDB(t)
	llm := []string{"--llm", "openai", "--llm-url", srv.URL(), "--llm-model", "scripted"}
	if r := exe(t, db, append(llm, "retain", "--speaker", "Tom", "I live in Paris.")...); r.code != exitOK {
		t.Fatalf("retain Paris: %v", r)
	}
	cities := []string{"Lyon", "Nice", "Lille", "Brest", "Dijon"}
	var wg sync.WaitGroup
	outs := make([][]byte, len(cities))
	errs := make([]error, len(cities))
	for i, c := range cities {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, append(append([]string{"--db", db}, llm...), "retain", "--speaker", "Tom", fmt.Sprintf("I moved to %s.", c))...)
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-test")
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range cities {
		if errs[i] != nil {
			t.Fatalf("retain %s: %v\n%s", cities[i], errs[i], outs[i])
		}
	}
	extractions := 0
	for _, r := range srv.ChatRequests() {
		if r.Schema == "extraction" {
			extractions++
		}
	}
	if extractions <= len(cities)+1 {
		t.Errorf("%d extractions for %d retains: no process lost a race and resolved again, so the test raced nothing", extractions, len(cities)+1)
	}
	st, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rels, err := st.Relations(context.Background(), memory.DefaultBank, memory.RelationQuery{Predicate: "lives_in"})
	if err != nil {
		t.Fatal(err)
	}
	current := 0
	for _, r := range rels {
		if r.ExpiredAt.IsZero() {
			current++
		}
	}
	if len(rels) != len(cities)+1 || current != 1 {
		t.Fatalf("%d lives_in edges, %d current; want %d edges and exactly 1 current", len(rels), current, len(cities)+1)
	}
	var closes, distinctBy int
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	row := raw.QueryRow(`SELECT count(*), count(DISTINCT by_id) FROM relation_closes WHERE bank_id = ?`, memory.DefaultBank)
	if err := row.Scan(&closes, &distinctBy); err != nil {
		t.Fatal(err)
	}
	if closes != len(cities) || distinctBy != len(cities) {
		t.Errorf("relation_closes: %d closes by %d edges; want %d, each edge closing one: a chain", closes, distinctBy, len(cities))
	}
}

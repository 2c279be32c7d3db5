package mnemo_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/postgres"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// pgSchemaURL returns a URL of the MNEMO_TEST_POSTGRES database whose
// connections use a schema of their own, dropped when the test ends; it
// skips the test without MNEMO_TEST_POSTGRES.
func pgSchemaURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("MNEMO_TEST_POSTGRES")
	if base == "" {
		t.Skip("MNEMO_TEST_POSTGRES is not set (scripts/pg-test.sh start prints a URL)")
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	u, err := postgres.CreateSchema(context.Background(), base, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := postgres.DropSchema(context.Background(), base, schema); err != nil {
			t.Error(err)
		}
	})
	return u
}

func openEngine(t *testing.T, db string) *mnemo.Engine {
	t.Helper()
	eng, err := mnemo.Open(context.Background(), mnemo.Config{DB: db, JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatalf("Open(%s): %v", db, err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func export(t *testing.T, eng *mnemo.Engine, bank string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := eng.Export(context.Background(), bank, &b); err != nil {
		t.Fatalf("Export(%s): %v", bank, err)
	}
	return b.Bytes()
}

// A bank moves SQLite → PostgreSQL → SQLite with nothing lost or changed:
// the three exports are identical, record for record, and each store
// answers from the imported bank and goes on writing to it.
func TestEngine_ExportImportRoundTrip(t *testing.T) {
	pgURL := pgSchemaURL(t)
	ctx := context.Background()
	src := openEngine(t, filepath.Join(t.TempDir(), "src.db"))
	if _, err := src.CreateBank(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 5, 1, 9, 30, 0, 123456000, time.UTC)
	for i, text := range []string{
		"Melanie adopted a puppy named Biscuit in Berlin.",
		"Caroline works at Acme Corp with Melanie. They went hiking in the Alps.",
		"Melanie's sister Anna moved to Lyon last June; Anna loves jazz and painting.",
	} {
		if _, err := src.Retain(ctx, memory.RetainRequest{BankID: "alice", Source: memory.SourceChat, ItemID: fmt.Sprint("chat-", i),
			Messages: []memory.Message{{Speaker: "Melanie", Text: text, Time: at.Add(time.Duration(i) * time.Hour)}, {Speaker: "Caroline", Text: "Tell me more about " + text}},
			Tags:     []string{"t" + fmt.Sprint(i)}, Metadata: map[string]string{"n": fmt.Sprint(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	// What retain without an LLM does not write: relations, supersessions,
	// reinforcements, watermarks, accesses, entity embeddings.
	st := mnemo.StoreOf(src)
	w := storetest.NewTestBatch("alice", "extra", "Melanie now works at Globex", "Melanie likes tea")
	w.Facts[0].Embedding = storetest.TestVector(w.Facts[0].Text, 0)
	w.Facts[1].Embedding = storetest.TestVector(w.Facts[1].Text, 0)
	mel := memory.EntityID("Melanie")
	globex := memory.EntityID("Globex")
	b, err := st.Bank(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range w.Facts {
		f.Embedding = storetest.TestVector(f.Text, b.Dimension)
	}
	w.Entities = []memory.EntityUpsert{{Entity: memory.Entity{ID: globex, Name: "Globex", Type: memory.EntityOrganization, Aliases: []string{"Globex Inc"}, FirstSeen: at},
		Embedding: storetest.TestVector("Globex", b.Dimension), Mentions: 3, Episodes: 2}}
	w.Refs = []memory.EntityRef{{FactID: w.Facts[0].ID, EntityID: globex}}
	w.Cooccurrences = []memory.Cooccurrence{{EntityA: mel, EntityB: globex, Count: 4}}
	w.Relations = []*memory.Relation{{ID: "r1", BankID: "alice", SubjectID: mel, Predicate: "works_at", ObjectID: globex, Confidence: 0.8,
		FactIDs: []string{w.Facts[0].ID}, ValidFrom: at, CreatedAt: at.Add(time.Minute)}}
	w.Links = []memory.Link{{BankID: "alice", FromID: w.Facts[0].ID, ToID: w.Facts[1].ID, Kind: memory.LinkCauses, Weight: 0.25}}
	w.Watermark = &memory.Watermark{BankID: "alice", Source: "folder/a.jsonl", LastItem: "line-9", UpdatedAt: at}
	hits, err := st.SearchText(ctx, "alice", []string{"puppy"}, 1, memory.Filter{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("SearchText(puppy): %v, %v", hits, err)
	}
	w.Supersede = []memory.Supersession{{FactID: hits[0].ID, SupersededBy: w.Facts[1].ID, ValidTo: at, ExpiredAt: at.Add(time.Hour)}}
	w.Reinforce = []string{w.Facts[0].ID}
	if _, err := st.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordAccess(ctx, "alice", []string{w.Facts[0].ID, hits[0].ID}, at.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendSession(ctx, "alice", "chat-9", []memory.SessionMessage{{Role: memory.RoleUser, Message: memory.Message{Speaker: "Melanie", Text: "Not extracted yet", Time: at}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.(memory.ObservationStore).PutObservations(ctx, "alice", []*memory.Observation{{ID: "o1", Text: "Melanie changes jobs often", Kind: memory.ObservationPattern,
		SourceFactIDs: []string{w.Facts[0].ID}, EvidenceCount: 1, Embedding: storetest.TestVector("o1", b.Dimension), CreatedAt: at, UpdatedAt: at}}); err != nil {
		t.Fatal(err)
	}

	a := export(t, src, "alice")
	for _, want := range []string{fmt.Sprintf(`{"kind":"header","version":%d,`, memory.ExportVersion), `"kind":"relation"`, `"kind":"link"`, `"kind":"cooccurrence"`, `"kind":"ref"`, `"kind":"watermark"`, `"kind":"chunk"`,
		`"kind":"observation"`, `"kind":"session"`, `"embedding":[`, `"superseded"`} {
		if !bytes.Contains(a, []byte(want)) {
			t.Fatalf("the SQLite export holds no %s:\n%s", want, a)
		}
	}

	pg := openEngine(t, pgURL)
	if _, err := pg.ImportBank(ctx, bytes.NewReader(a), mnemo.ImportBankOptions{}); err != nil {
		t.Fatalf("ImportBank into PostgreSQL: %v", err)
	}
	b2 := export(t, pg, "alice")
	if d := firstDiff(a, b2); d != "" {
		t.Fatalf("export from PostgreSQL differs from SQLite's: %s", d)
	}

	dst := openEngine(t, filepath.Join(t.TempDir(), "dst.db"))
	if _, err := dst.ImportBank(ctx, bytes.NewReader(b2), mnemo.ImportBankOptions{}); err != nil {
		t.Fatalf("ImportBank into SQLite: %v", err)
	}
	if d := firstDiff(a, export(t, dst, "alice")); d != "" {
		t.Fatalf("export after SQLite → PostgreSQL → SQLite differs: %s", d)
	}

	// Each imported bank answers and goes on: the same stats, the same
	// vector search, a new retain lands after the imported facts.
	for name, eng := range map[string]*mnemo.Engine{"postgres": pg, "sqlite": dst} {
		want, _ := src.Stats(ctx, "alice")
		got, err := eng.Stats(ctx, "alice")
		if err != nil || *got != *want {
			t.Errorf("%s: Stats: got %+v, %v, want %+v", name, got, err, want)
		}
		q := storetest.TestVector("Melanie tea", b.Dimension)
		wantHits, _ := st.SearchVector(ctx, "alice", q, 5, memory.Filter{})
		gotHits, err := mnemo.StoreOf(eng).SearchVector(ctx, "alice", q, 5, memory.Filter{})
		if err != nil || fmt.Sprint(hitIDs(gotHits)) != fmt.Sprint(hitIDs(wantHits)) {
			t.Errorf("%s: SearchVector: got %v, %v, want %v", name, hitIDs(gotHits), err, hitIDs(wantHits))
		}
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "alice", Text: "Melanie bought a bicycle"}); err != nil {
			t.Fatalf("%s: Retain after import: %v", name, err)
		}
		rec, err := eng.Recall(ctx, memory.Query{BankID: "alice", Text: "bicycle"})
		if err != nil || !strings.Contains(fmt.Sprint(rec), "bicycle") {
			t.Errorf("%s: Recall(bicycle) after import: %v", name, err)
		}
	}
	// Importing again under the same name is refused and changes nothing;
	// under another name it is a second bank.
	if _, err := pg.ImportBank(ctx, bytes.NewReader(a), mnemo.ImportBankOptions{}); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("ImportBank of an existing bank: got %v, want ECONFLICT", err)
	}
	if _, err := pg.ImportBank(ctx, bytes.NewReader(a), mnemo.ImportBankOptions{Bank: "alice-copy"}); err != nil {
		t.Fatalf("ImportBank under another name: %v", err)
	}
	copyExport := export(t, pg, "alice-copy")
	if d := firstDiff(bytes.ReplaceAll(a, []byte(`"alice"`), []byte(`"alice-copy"`)), copyExport); d != "" {
		t.Errorf("export of the renamed import differs: %s", d)
	}
	// A broken export leaves no bank behind.
	broken := append(bytes.Clone(a[:bytes.IndexByte(a, '\n')+1]), []byte(`{"kind":"fact","fact":{"id":"x","seq":0}}`+"\n")...)
	if _, err := pg.ImportBank(ctx, bytes.NewReader(broken), mnemo.ImportBankOptions{Bank: "broken"}); err == nil {
		t.Errorf("ImportBank of a broken export: got no error")
	}
	if _, err := pg.Bank(ctx, "broken"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Bank(broken) after a failed import: got %v, want ENOTFOUND", err)
	}
	// A version-2 file (no trailer: the format before version 3) imports
	// as before; the same file saying the current version is cut short.
	lines := bytes.SplitAfter(bytes.TrimSuffix(a, []byte("\n")), []byte("\n"))
	noTrailer := bytes.Join(lines[:len(lines)-1], nil)
	if !bytes.Contains(lines[len(lines)-1], []byte(`"kind":"trailer"`)) {
		t.Fatalf("the export does not end with its trailer: %s", lines[len(lines)-1])
	}
	v2 := bytes.Replace(noTrailer, []byte(fmt.Sprintf(`"version":%d,`, memory.ExportVersion)), []byte(`"version":2,`), 1)
	if _, err := pg.ImportBank(ctx, bytes.NewReader(v2), mnemo.ImportBankOptions{Bank: "alice-v2"}); err != nil {
		t.Errorf("ImportBank of a version-2 file without a trailer: %v", err)
	}
	if _, err := pg.ImportBank(ctx, bytes.NewReader(noTrailer), mnemo.ImportBankOptions{Bank: "alice-cut"}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("ImportBank of a version-%d file without its trailer: got %v, want EINVALID", memory.ExportVersion, err)
	}
}

func hitIDs(hs []memory.Hit) []string {
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ID)
	}
	return ids
}

// firstDiff describes the first line in which two exports differ.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range max(len(la), len(lb)) {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, y, x)
		}
	}
	return ""
}

// An export written by mnemo before the version-2 format (the fixture:
// the pre-v2 binary retained three items offline and exported them)
// imports, and the bank holds the same documents, facts and entities,
// field for field: each version-1 record's fields equal the version-2
// record's snake_case fields.
func TestEngine_ImportV1(t *testing.T) {
	ctx := context.Background()
	v1, err := os.ReadFile("testdata/export-v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t, filepath.Join(t.TempDir(), "v2.db"))
	rep, err := eng.ImportBank(ctx, bytes.NewReader(v1), mnemo.ImportBankOptions{})
	if err != nil {
		t.Fatalf("ImportBank(version 1): %v", err)
	}
	if rep.Bank != "alice" || rep.Counts[memory.RecordFact] != 4 || rep.Counts[memory.RecordEntity] != 9 || rep.Counts[memory.RecordDocument] != 3 {
		t.Errorf("ImportBank(version 1): got %+v, want bank alice with 3 documents, 4 facts, 9 entities", rep)
	}
	v2 := export(t, eng, "alice")
	oldLines, newLines := bytes.Split(bytes.TrimSpace(v1), []byte("\n")), bytes.Split(bytes.TrimSpace(v2), []byte("\n"))
	// Version 1 has no trailer; version 2 ends with one.
	if last := newLines[len(newLines)-1]; bytes.Contains(last, []byte(`"kind":"trailer"`)) {
		newLines = newLines[:len(newLines)-1]
	}
	if len(oldLines) != len(newLines) {
		t.Fatalf("the version-2 export has %d records, the version-1 file %d", len(newLines), len(oldLines))
	}
	for i := range oldLines {
		var o, n struct {
			Type, Kind string
			Version    int
		}
		var om, nm map[string]json.RawMessage
		if err := json.Unmarshal(oldLines[i], &om); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(newLines[i], &nm); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(oldLines[i], &o)
		json.Unmarshal(newLines[i], &n)
		kind := o.Type
		if kind == "bank" {
			kind = memory.RecordHeader
			if n.Version != memory.ExportVersion {
				t.Errorf("line 1: version %d, want %d", n.Version, memory.ExportVersion)
			}
		}
		if n.Kind != kind {
			t.Fatalf("line %d: kind %q, want %q (version 1: %q)", i+1, n.Kind, kind, o.Type)
		}
		field := o.Type
		want, got := nonZero(t, om[field]), nonZero(t, nm[field])
		delete(want, "bank_id") // version 2 names the bank once, in the header
		if kind == memory.RecordHeader {
			delete(want, "created_at") // the bank is new
			delete(got, "created_at")
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("line %d (%s):\n got  %v\n want %v", i+1, kind, got, want)
		}
	}
	// The imported bank answers.
	rec, err := eng.Recall(ctx, memory.Query{BankID: "alice", Text: "Who adopted a puppy?"})
	if err != nil || !strings.Contains(fmt.Sprint(rec), "Biscuit") {
		t.Errorf("Recall(puppy) after a version-1 import: %v, %v", rec, err)
	}
}

// nonZero decodes a JSON object and keeps its fields that hold something,
// keyed by their snake_case names ("OccurredStart" and "occurred_start"
// alike): a zero time, "", 0, false, null and empty lists are left out,
// as version 2 leaves them out.
func nonZero(t *testing.T, raw json.RawMessage) map[string]string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range m {
		switch s := string(v); s {
		case `""`, `0`, `false`, `null`, `[]`, `{}`, `"0001-01-01T00:00:00Z"`:
			continue
		default:
			out[snake(k)] = s
		}
	}
	return out
}

// snake spells a Go field name in snake_case: "DocumentID" is
// "document_id", "FactIDs" "fact_ids"; a snake_case name stays as it is.
func snake(name string) string {
	name = strings.ReplaceAll(strings.ReplaceAll(name, "IDs", "Ids"), "ID", "Id")
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// A version-3 export (the golden bank as version 3 wrote it, before
// directives and pinned questions were exported) imports, and exporting
// the bank again gives the same records under a version-4 header.
func TestEngine_ImportV3(t *testing.T) {
	ctx := context.Background()
	v3, err := os.ReadFile("testdata/export-v3.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t, filepath.Join(t.TempDir(), "v4.db"))
	if _, err := eng.ImportBank(ctx, bytes.NewReader(v3), mnemo.ImportBankOptions{}); err != nil {
		t.Fatalf("ImportBank(version 3): %v", err)
	}
	v4 := export(t, eng, "x")
	want := bytes.Replace(v3, []byte(`{"kind":"header","version":3,`), []byte(`{"kind":"header","version":4,`), 1)
	if d := firstDiff(want, v4); d != "" {
		t.Errorf("version 3 imported and exported again differs: %s", d)
	}
}

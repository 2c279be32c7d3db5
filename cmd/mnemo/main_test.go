package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// mnemoBin is the mnemo binary built by TestMain for the tests that need
// separate processes; empty when the go command is not available.
var mnemoBin string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if goCmd, err := exec.LookPath("go"); err == nil {
		dir, err := os.MkdirTemp("", "mnemo-cli-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "mnemo")
		out, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
			return 1
		}
		mnemoBin = bin
	}
	return m.Run()
}

// result is what one mnemo command line did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// mnemoIn runs one command line on db through run, with stdin.
func mnemoIn(t *testing.T, db string, stdin io.Reader, args ...string) result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"--db", db}, args...), stdin, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// mnemoRun runs one command line on db with an empty stdin.
func mnemoRun(t *testing.T, db string, args ...string) result {
	t.Helper()
	return mnemoIn(t, db, nil, args...)
}

// mustRun runs one command line that must succeed and returns its stdout.
func mustRun(t *testing.T, db string, args ...string) string {
	t.Helper()
	r := mnemoRun(t, db, args...)
	if r.code != exitOK {
		t.Fatalf("mnemo %s: %v", strings.Join(args, " "), r)
	}
	return r.stdout
}

// wantFailure checks a failed command: the exit code, nothing on stdout
// and one "mnemo: …" line on stderr mentioning each of want.
func wantFailure(t *testing.T, r result, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code = %d, want %d\n%v", r.code, code, r)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	msg := strings.TrimSuffix(r.stderr, "\n")
	if !strings.HasPrefix(msg, "mnemo: ") || strings.Contains(msg, "\n") {
		t.Errorf("stderr = %q, want one line starting with \"mnemo: \"", r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("stderr = %q, want it to mention %q", r.stderr, w)
		}
	}
}

func newDB(t *testing.T) string {
	return filepath.Join(t.TempDir(), "mnemo.db")
}

// emptyDB returns the path of a new database that holds no bank: read
// commands refuse a path with no database (see checkDB).
func emptyDB(t *testing.T) string {
	t.Helper()
	db := newDB(t)
	s, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}

type statsJSON struct {
	Bank       string `json:"bank"`
	Documents  int    `json:"documents"`
	Chunks     int    `json:"chunks"`
	Facts      int    `json:"facts"`
	Active     int    `json:"active"`
	Superseded int    `json:"superseded"`
	Archived   int    `json:"archived"`
	// Quarantined and Redacted count what the memory firewall did.
	Quarantined int `json:"quarantined"`
	Redacted    int `json:"redacted"`
	Entities    int `json:"entities"`
	Relations   int `json:"relations"`
	Links       int `json:"links"`
}

// stats returns `mnemo stats --json` of a bank.
func stats(t *testing.T, db, bank string) statsJSON {
	t.Helper()
	var st statsJSON
	decodeStrict(t, mustRun(t, db, "--bank", bank, "--json", "stats"), &st)
	return st
}

// decodeStrict decodes one JSON value with no unknown fields.
func decodeStrict(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, s)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value:\n%s", s)
	}
}

// keys returns the sorted keys of a JSON object.
func keys(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, raw)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

type recallResult struct {
	ID         string                          `json:"id"`
	Text       string                          `json:"text"`
	Score      float64                         `json:"score"`
	OccurredAt *time.Time                      `json:"occurred_at"`
	Speaker    string                          `json:"speaker"`
	Explain    map[string]memory.StrategyScore `json:"explain"`
	Status     memory.Status                   `json:"status"`
	Previously []struct {
		ID      string     `json:"id"`
		Text    string     `json:"text"`
		Speaker string     `json:"speaker"`
		ValidTo *time.Time `json:"valid_to"`
	} `json:"previously"`
	Tier memory.FactTier `json:"tier"`
}

type recallOut struct {
	Results []recallResult `json:"results"`
	Context string         `json:"context"`
}

// doRecall runs `recall --json` and decodes it.
func doRecall(t *testing.T, db string, args ...string) recallOut {
	t.Helper()
	var out recallOut
	decodeStrict(t, mustRun(t, db, append([]string{"--json", "recall"}, args...)...), &out)
	return out
}

// rankOf returns the 0-based rank of the first result containing s, or -1.
func rankOf(results []recallResult, s string) int {
	for i, r := range results {
		if strings.Contains(r.Text, s) {
			return i
		}
	}
	return -1
}

const lisbon = "I moved to Lisbon to work at Northwind Labs"

// unrelated are facts that share no content word with the Lisbon fact.
var unrelated = []string{
	"Tom adopted a border collie called Biscuit.",
	"The quarterly budget review is scheduled for Thursday afternoon.",
	"Ana prefers green tea over coffee in the morning.",
	"The wedding will be held at a vineyard near Heidelberg.",
}

func TestRetainRecall(t *testing.T) {
	db := newDB(t)
	out := mustRun(t, db, "retain", "--speaker", "Maya", "--at", "2024-03-04", lisbon)
	if !strings.HasPrefix(out, "remembered ") {
		t.Errorf("retain printed %q, want \"remembered …\"", out)
	}
	for _, u := range unrelated {
		mustRun(t, db, "retain", "--at", "2024-05-01T10:00:00Z", u)
	}
	if got, want := stats(t, db, "default").Facts, 1+len(unrelated); got != want {
		t.Fatalf("facts = %d, want %d", got, want)
	}

	t.Run("JSON", func(t *testing.T) {
		r := mnemoRun(t, db, "--json", "recall", "Where does Maya work?")
		if r.code != exitOK {
			t.Fatal(r)
		}
		// The field set is a contract: exactly these keys.
		if got, want := keys(t, []byte(r.stdout)), []string{"context", "results"}; !reflect.DeepEqual(got, want) {
			t.Errorf("top-level keys = %q, want %q", got, want)
		}
		var raw struct{ Results []json.RawMessage }
		if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
			t.Fatal(err)
		}
		if len(raw.Results) == 0 {
			t.Fatalf("no results:\n%s", r.stdout)
		}
		for i, res := range raw.Results {
			if got, want := keys(t, res), []string{"id", "occurred_at", "score", "speaker", "text", "tier"}; !reflect.DeepEqual(got, want) {
				t.Errorf("result %d keys = %q, want %q", i, got, want)
			}
		}

		var rec recallOut
		decodeStrict(t, r.stdout, &rec)
		top := rec.Results[0]
		if top.Text != lisbon {
			t.Errorf("first result = %q, want %q (all: %+v)", top.Text, lisbon, rec.Results)
		}
		if top.Speaker != "Maya" {
			t.Errorf("speaker = %q, want Maya", top.Speaker)
		}
		if want := time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC); top.OccurredAt == nil || !top.OccurredAt.Equal(want) {
			t.Errorf("occurred_at = %v, want %v", top.OccurredAt, want)
		}
		ids := map[string]bool{}
		for i, res := range rec.Results {
			if res.ID == "" || ids[res.ID] {
				t.Errorf("result %d: id %q is empty or repeated", i, res.ID)
			}
			ids[res.ID] = true
			if res.Score <= 0 {
				t.Errorf("result %d: score %v, want > 0", i, res.Score)
			}
			if i > 0 && res.Score > rec.Results[i-1].Score {
				t.Errorf("result %d: score %v above the previous %v", i, res.Score, rec.Results[i-1].Score)
			}
		}
		if rec.Context == "" || !strings.Contains(rec.Context, lisbon) {
			t.Errorf("context = %q, want it to contain %q", rec.Context, lisbon)
		}
	})

	t.Run("Limit", func(t *testing.T) {
		rec := doRecall(t, db, "--limit", "1", "Where does Maya work?")
		if len(rec.Results) != 1 || rec.Results[0].Text != lisbon {
			t.Errorf("--limit 1 gave %+v, want only the Lisbon fact", rec.Results)
		}
	})

	t.Run("Text", func(t *testing.T) {
		out := mustRun(t, db, "recall", "Where does Maya work?")
		first, _, _ := strings.Cut(out, "\n")
		for _, want := range []string{"1.", "2024-03-04", "Maya: " + lisbon} {
			if !strings.Contains(first, want) {
				t.Errorf("first line %q does not contain %q", first, want)
			}
		}
	})

	t.Run("Explain", func(t *testing.T) {
		out := mustRun(t, db, "recall", "--explain", "Where does Maya work?")
		lines := strings.Split(out, "\n")
		if len(lines) < 3 || !strings.Contains(lines[0], lisbon) {
			t.Fatalf("explain output:\n%s", out)
		}
		// The lines under the first result give its rank per strategy; it
		// is found first by the context strategy (keyword hits with their
		// session, neighbours and speaker).
		ranks := map[string]string{}
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			if len(f) < 3 || f[1] != "rank" {
				break
			}
			ranks[f[0]] = f[2]
		}
		for _, s := range []string{recall.StrategyContext} {
			if ranks[s] != "1" {
				t.Errorf("%s rank = %q, want 1\n%s", s, ranks[s], out)
			}
		}

		rec := doRecall(t, db, "--explain", "Where does Maya work?")
		if e, ok := rec.Results[0].Explain[recall.StrategyContext]; !ok || e.Rank != 1 {
			t.Errorf("--json --explain: context explanation %+v, want rank 1 (%+v)", e, rec.Results[0].Explain)
		}
	})

	t.Run("NothingRelevant", func(t *testing.T) {
		db := newDB(t)
		mustRun(t, db, "bank", "create", "default")
		if out := mustRun(t, db, "recall", "anything at all"); !strings.Contains(out, "nothing relevant") {
			t.Errorf("recall on an empty bank printed %q", out)
		}
		if rec := doRecall(t, db, "anything at all"); rec.Results == nil || len(rec.Results) != 0 {
			t.Errorf("--json on an empty bank: results %#v, want []", rec.Results)
		}
	})
}

// exampleChat returns the path of the README's sample conversation and
// its number of messages and sessions.
func exampleChat(t *testing.T) (path string, messages, sessions int) {
	path = filepath.Join("..", "..", "examples", "chat.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m struct{ Session string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		messages++
		if !seen[m.Session] {
			seen[m.Session] = true
			sessions++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return path, messages, sessions
}

// The README's first command: import the sample chat and ask about it.
func TestImport_Example(t *testing.T) {
	db := newDB(t)
	path, messages, sessions := exampleChat(t)

	out := mustRun(t, db, "import", path)
	if want := fmt.Sprintf("imported %d of %d items (0 already known): %d facts", sessions, sessions, messages); !strings.Contains(out, want) {
		t.Errorf("import printed %q, want %q", out, want)
	}
	st := stats(t, db, "default")
	if st.Facts != messages || st.Documents != sessions {
		t.Errorf("stats = %+v, want %d facts in %d documents", st, messages, sessions)
	}

	// The README's demo question: the answer is the turn after the one
	// that matches its words, so recall must reach it through the graph.
	t.Run("Recall", func(t *testing.T) {
		rec := doRecall(t, db, "Where is Tom's wedding?")
		var top3 []string
		for _, r := range rec.Results[:min(3, len(rec.Results))] {
			top3 = append(top3, r.Text)
		}
		if !slices.ContainsFunc(top3, func(s string) bool { return strings.Contains(s, "Heidelberg") }) {
			t.Errorf("no Heidelberg fact in the top 3: %q", top3)
		}
	})
	if text := mustRun(t, db, "recall", "Where is Tom's wedding?"); !strings.Contains(text, " 1. ") || !strings.Contains(text, "Heidelberg") {
		t.Errorf("plain recall:\n%s", text)
	}

	t.Run("Again", func(t *testing.T) {
		r := mnemoRun(t, db, "import", path)
		if r.code != exitOK {
			t.Fatal(r)
		}
		if want := fmt.Sprintf("imported 0 of %d items (%d already known): 0 facts", sessions, sessions); !strings.Contains(r.stdout, want) {
			t.Errorf("second import printed %q, want %q", r.stdout, want)
		}
		if got := stats(t, db, "default"); got != st {
			t.Errorf("stats after the second import = %+v, want %+v", got, st)
		}
	})

	t.Run("JSON", func(t *testing.T) {
		var out struct {
			Report   mnemo.ImportReport `json:"report"`
			Problems []json.RawMessage  `json:"problems"`
		}
		decodeStrict(t, mustRun(t, db, "--json", "import", path), &out)
		if want := (mnemo.ImportReport{Items: sessions, Duplicates: sessions}); !reflect.DeepEqual(out.Report, want) {
			t.Errorf("report = %+v, want %+v", out.Report, want)
		}
		if len(out.Problems) != 0 {
			t.Errorf("problems = %s, want none", out.Problems)
		}
	})

	t.Run("OtherBank", func(t *testing.T) {
		mustRun(t, db, "bank", "create", "maya")
		mustRun(t, db, "--bank", "maya", "import", path)
		if got := stats(t, db, "maya"); got.Facts != messages {
			t.Errorf("bank maya holds %d facts, want %d", got.Facts, messages)
		}
	})
}

// TestImport_Detect checks that import tells a file's format from its
// content when its name does not: LoCoMo, a chat transcript, a bank
// export; and refuses what is none of them.
func TestImport_Detect(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("LoCoMo", func(t *testing.T) {
		db := newDB(t)
		b, err := os.ReadFile(filepath.Join("..", "..", "importer", "testdata", "locomo-tiny.json"))
		if err != nil {
			t.Fatal(err)
		}
		out := mustRun(t, db, "import", write("conversations.data", "\n "+string(b)))
		if !strings.Contains(out, "imported 4 of 4 items") {
			t.Errorf("import printed %q, want 4 sessions imported", out)
		}
		if st := stats(t, db, "tiny-1"); st.Documents != 3 || st.Facts == 0 {
			t.Errorf("bank tiny-1: %+v, want its 3 sessions", st)
		}
	})
	t.Run("Chat", func(t *testing.T) {
		db := newDB(t)
		out := mustRun(t, db, "import", write("chat.log", `{"speaker": "Maya", "text": "I moved to Lisbon in March 2021.", "time": "2024-03-04"}`+"\n"))
		if !strings.Contains(out, "imported 1 of 1 items") {
			t.Errorf("import printed %q, want 1 item", out)
		}
	})
	t.Run("Export", func(t *testing.T) {
		db := newDB(t)
		mustRun(t, db, "bank", "create", "alice")
		mustRun(t, db, "--bank", "alice", "retain", "I moved to Lisbon in March 2021.")
		path := filepath.Join(dir, "alice.jsonl") // an export, whatever its name says
		mustRun(t, db, "--bank", "alice", "export", "-o", path)
		other := newDB(t)
		if out := mustRun(t, other, "import", path); !strings.Contains(out, "imported bank alice") {
			t.Errorf("import printed %q, want the bank alice imported", out)
		}
		if st := stats(t, other, "alice"); st.Facts != 1 {
			t.Errorf("bank alice: %+v, want its fact", st)
		}
	})
	for _, tt := range []struct{ name, content string }{
		{"Empty", ""},
		{"Blank", " \n\t\n"},
		{"Text", "Maya moved to Lisbon.\n"},
	} {
		t.Run("Err"+tt.name, func(t *testing.T) {
			wantFailure(t, mnemoRun(t, newDB(t), "import", write(tt.name+".txt", tt.content)), exitInvalid, tt.name+".txt", "set --format")
		})
	}
}

func TestBank(t *testing.T) {
	db := emptyDB(t)
	listJSON := func() []string {
		t.Helper()
		var out struct {
			Banks []struct {
				Name      string    `json:"name"`
				Embedder  string    `json:"embedder"`
				Dimension int       `json:"dimension"`
				CreatedAt time.Time `json:"created_at"`
			} `json:"banks"`
		}
		decodeStrict(t, mustRun(t, db, "--json", "bank", "list"), &out)
		names := []string{}
		for _, b := range out.Banks {
			if b.CreatedAt.IsZero() {
				t.Errorf("bank %s has no created_at", b.Name)
			}
			names = append(names, b.Name)
		}
		return names
	}

	if got := listJSON(); len(got) != 0 {
		t.Errorf("new database lists banks %q", got)
	}
	if out := mustRun(t, db, "bank", "create", "work"); out != "created bank work\n" {
		t.Errorf("create printed %q", out)
	}
	var created struct {
		Name      string    `json:"name"`
		CreatedAt time.Time `json:"created_at"`
	}
	decodeStrict(t, mustRun(t, db, "--json", "bank", "create", "home"), &created)
	if created.Name != "home" || created.CreatedAt.IsZero() {
		t.Errorf("create --json = %+v", created)
	}
	if got, want := listJSON(), []string{"home", "work"}; !reflect.DeepEqual(got, want) {
		t.Errorf("banks = %q, want %q", got, want)
	}
	if got, want := mustRun(t, db, "bank", "list"), "home\nwork\n"; got != want {
		t.Errorf("bank list = %q, want %q", got, want)
	}

	t.Run("ErrConflict", func(t *testing.T) {
		wantFailure(t, mnemoRun(t, db, "bank", "create", "work"), exitConflict, "work", "already exists")
	})
	t.Run("ErrInvalidName", func(t *testing.T) {
		for _, name := range []string{"", "has space", "_under", ".dot", strings.Repeat("x", 129), "caf\xe9"} {
			wantFailure(t, mnemoRun(t, db, "bank", "create", name), exitInvalid, "bank name")
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantFailure(t, mnemoRun(t, db, "bank", "delete", "nosuch"), exitNotFound, `"nosuch"`)
		for _, args := range [][]string{
			{"retain", "Maya lives in Lisbon."},
			{"recall", "Where does Maya live?"},
			{"stats"},
		} {
			wantFailure(t, mnemoRun(t, db, append([]string{"--bank", "nosuch"}, args...)...), exitNotFound, `"nosuch"`)
		}
		if got, want := listJSON(), []string{"home", "work"}; !reflect.DeepEqual(got, want) {
			t.Errorf("banks = %q, want %q: a failed command created a bank", got, want)
		}
	})
	t.Run("ErrNotFoundImport", func(t *testing.T) {
		wantFailure(t, mnemoRun(t, db, "--bank", "nosuch", "import", filepath.Join("..", "..", "examples", "chat.jsonl")), exitNotFound, `"nosuch"`)
	})

	t.Run("Isolation", func(t *testing.T) {
		mustRun(t, db, "--bank", "work", "retain", "--at", "2024-01-02", "The deploy freeze starts on Friday.")
		mustRun(t, db, "--bank", "work", "retain", "--at", "2024-01-02", "The billing service belongs to Priya.")
		mustRun(t, db, "--bank", "home", "retain", "--at", "2024-01-02", "The plumber comes on Friday.")
		w, h := stats(t, db, "work"), stats(t, db, "home")
		if w.Bank != "work" || w.Facts != 2 || w.Documents != 2 || w.Active != 2 || w.Chunks != 2 {
			t.Errorf("work stats = %+v, want 2 facts, documents and chunks", w)
		}
		if h.Bank != "home" || h.Facts != 1 || h.Documents != 1 {
			t.Errorf("home stats = %+v, want 1 fact and document", h)
		}
		if w.Entities == 0 {
			t.Errorf("work stats = %+v: Priya is an entity", w)
		}
		rec := doRecall(t, db, "--bank", "home", "What happens on Friday?")
		for _, r := range rec.Results {
			if !strings.Contains(r.Text, "plumber") {
				t.Errorf("bank home recalled %q from another bank", r.Text)
			}
		}
	})

	t.Run("Delete", func(t *testing.T) {
		if out := mustRun(t, db, "bank", "delete", "work"); out != "deleted bank work\n" {
			t.Errorf("delete printed %q", out)
		}
		var del map[string]string
		decodeStrict(t, mustRun(t, db, "--json", "bank", "delete", "home"), &del)
		if del["deleted"] != "home" {
			t.Errorf("delete --json = %v", del)
		}
		if got := listJSON(); len(got) != 0 {
			t.Errorf("banks after deleting both = %q", got)
		}
		wantFailure(t, mnemoRun(t, db, "--bank", "work", "recall", "Friday"), exitNotFound, `"work"`)
		wantFailure(t, mnemoRun(t, db, "--bank", "work", "retain", "Friday"), exitNotFound, `"work"`)
		// A bank of the same name starts empty.
		mustRun(t, db, "bank", "create", "work")
		if st := stats(t, db, "work"); st != (statsJSON{Bank: "work"}) {
			t.Errorf("recreated bank stats = %+v, want empty", st)
		}
	})
}

// The default bank is created by the first retain.
func TestRetain_DefaultBank(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "Maya lives in Lisbon.")
	if got := mustRun(t, db, "bank", "list"); got != "default\n" {
		t.Errorf("banks = %q, want default", got)
	}
}

func TestRetain_Stdin(t *testing.T) {
	db := newDB(t)
	text := "Maya moved to Lisbon.\n\nShe works at Northwind Labs. Her sister Lena lives in Berlin."
	for _, args := range [][]string{{"retain", "--at", "2024-03-04", "-"}, {"retain", "--at", "2024-03-04"}} {
		r := mnemoIn(t, db, strings.NewReader(text), args...)
		if r.code != exitOK {
			t.Fatal(r)
		}
	}
	// Both read the same text: the second is a duplicate.
	if st := stats(t, db, "default"); st.Documents != 1 || st.Facts != 3 || st.Chunks != 2 {
		t.Errorf("stats = %+v, want 1 document, 2 chunks (paragraphs), 3 facts (sentences)", st)
	}
	rec := doRecall(t, db, "Where does Lena live?")
	if len(rec.Results) == 0 || rec.Results[0].Text != "Her sister Lena lives in Berlin." {
		t.Errorf("recall = %+v", rec.Results)
	}
}

func TestRetain_Duplicate(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"At", []string{"retain", "--speaker", "Maya", "--at", "2024-03-04", lisbon}},
		{"ItemIDAt", []string{"retain", "--id", "note-1", "--at", "2024-03-04T10:00:00+01:00", lisbon}},
		{"Stdin", []string{"retain", "--at", "2024-03-04", "--tags", "a,b", "-"}},
		// Without --at the time is now, which must not make the same
		// text a new item.
		{"Now", []string{"retain", "--speaker", "Maya", lisbon}},
		{"ItemIDNow", []string{"retain", "--id", "note-1", lisbon}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasSuffix(tt.name, "Now") {
			}
			db := newDB(t)
			retain := func(args ...string) string {
				t.Helper()
				r := mnemoIn(t, db, strings.NewReader(lisbon), args...)
				if r.code != exitOK {
					t.Fatal(r)
				}
				return r.stdout
			}
			retain(tt.args...)
			before := stats(t, db, "default")
			if before.Facts != 1 {
				t.Fatalf("stats = %+v, want 1 fact", before)
			}
			out := retain(tt.args...)
			if !strings.HasPrefix(out, "already remembered") {
				t.Errorf("second retain printed %q, want \"already remembered …\"", out)
			}
			if got := stats(t, db, "default"); got != before {
				t.Errorf("stats after the second retain = %+v, want %+v", got, before)
			}
			var res memory.RetainResult
			decodeStrict(t, retain(append([]string{"--json"}, tt.args...)...), &res)
			if !res.Duplicate || res.DocumentID == "" || res.Facts != 0 {
				t.Errorf("retain --json = %+v, want a duplicate with its document id", res)
			}
		})
	}
	t.Run("Changed", func(t *testing.T) {
		db := newDB(t)
		mustRun(t, db, "retain", "--id", "note-1", "--at", "2024-03-04", lisbon)
		out := mustRun(t, db, "retain", "--id", "note-1", "--at", "2024-03-04", "Maya moved to Porto to work at Tidewater Robotics.")
		if !strings.HasPrefix(out, "remembered") {
			t.Errorf("retain of a changed item printed %q", out)
		}
		st := stats(t, db, "default")
		if st.Documents != 1 || st.Active != 1 {
			t.Errorf("stats = %+v: the new version should replace the old", st)
		}
		rec := doRecall(t, db, "Where does Maya work?")
		if rankOf(rec.Results, "Northwind") >= 0 || rankOf(rec.Results, "Tidewater") != 0 {
			t.Errorf("recall after replacing the item = %+v", rec.Results)
		}
	})
}

func TestBadInput(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
	mustRun(t, db, "bank", "create", "other")
	before := stats(t, db, "default")
	banks := mustRun(t, db, "bank", "list")

	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string // in the error message
	}{
		{"EmptyArg", "", []string{"retain", ""}, "empty"},
		{"EmptyStdinDash", "", []string{"retain", "-"}, "empty"},
		{"EmptyStdin", "", []string{"retain"}, "nothing to remember"},
		{"WhitespaceArg", "", []string{"retain", " \t\n "}, "empty"},
		{"WhitespaceStdin", "  \n\n\t \r\n", []string{"retain", "-"}, "empty"},
		{"InvalidUTF8Stdin", "I moved to Lisb\xf3n", []string{"retain", "-"}, "UTF-8"},
		{"InvalidUTF8Arg", "", []string{"retain", "caf\xc3\x28"}, "UTF-8"},
		{"InvalidUTF8Speaker", "", []string{"retain", "--speaker", "M\xffya", "hello there"}, "UTF-8"},
		{"BadAt", "", []string{"retain", "--at", "yesterday", "hello there"}, "yesterday"},
		{"BadAtDate", "", []string{"retain", "--at", "2024-02-30", "hello there"}, "2024-02-30"},
		{"BadAtForm", "", []string{"retain", "--at", "04/03/2024", "hello there"}, "RFC 3339"},
		{"TwoTexts", "", []string{"retain", "one", "two"}, "accepts at most 1 arg"},
		{"BadBankName", "", []string{"--bank", "no space allowed", "retain", "hello there"}, "bank name"},
		{"RecallEmpty", "", []string{"recall", ""}, "query is empty"},
		{"RecallWhitespace", "", []string{"recall", "  \t "}, "query is empty"},
		{"RecallNoQuery", "", []string{"recall"}, "requires at least 1 arg"},
		{"RecallInvalidUTF8", "", []string{"recall", "Lisb\xf3n"}, "UTF-8"},
		{"RecallTooLong", "", []string{"recall", strings.Repeat("word ", memory.MaxQueryBytes)}, "limit"},
		{"RecallBadLimit", "", []string{"recall", "--limit", "-1", "Lisbon"}, "limit"},
		{"RecallHugeLimit", "", []string{"recall", "--limit", fmt.Sprint(memory.MaxRecallLimit + 1), "Lisbon"}, "limit"},
		{"RecallLimitNotNumber", "", []string{"recall", "--limit", "ten", "Lisbon"}, "invalid argument"},
		{"RecallBadBudget", "", []string{"recall", "--budget", "-5", "Lisbon"}, "budget"},
		{"UnknownCommand", "", []string{"frobnicate"}, "unknown command"},
		{"UnknownFlag", "", []string{"retain", "--frobnicate", "hello there"}, "unknown flag"},
		{"UnknownGlobalFlag", "", []string{"--frobnicate", "stats"}, "unknown flag"},
		{"FlagWithoutValue", "", []string{"retain", "hello there", "--at"}, "flag needs an argument"},
		{"StatsArgs", "", []string{"stats", "extra"}, "unknown command"},
		{"ImportMissingFile", "", []string{"import", filepath.Join(t.TempDir(), "nope.jsonl")}, "nope.jsonl"},
		{"ImportNoFile", "", []string{"import"}, "accepts 1 arg"},
		{"ImportBadFormat", "", []string{"import", "--format", "csv", filepath.Join("..", "..", "examples", "chat.jsonl")}, "csv"},
		{"BankCreateNoName", "", []string{"bank", "create"}, "accepts 1 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantFailure(t, mnemoIn(t, db, strings.NewReader(tt.stdin), tt.args...), exitInvalid, tt.want)
			if got := stats(t, db, "default"); got != before {
				t.Errorf("stats = %+v, want %+v: a refused command changed the bank", got, before)
			}
			if got := mustRun(t, db, "bank", "list"); got != banks {
				t.Errorf("banks = %q, want %q", got, banks)
			}
		})
	}
}

// TestUsageError checks that every command-line mistake cobra finds
// reaches run as a usageError, by type, and exits 2; and that errors of
// the commands themselves are not usage errors.
func TestUsageError(t *testing.T) {
	db := newDB(t)
	tests := []struct {
		name  string
		args  []string
		usage bool
	}{
		{"UnknownCommand", []string{"frobnicate"}, true},
		{"UnknownCommandNearName", []string{"stat"}, true},
		{"UnknownFlag", []string{"retain", "--frobnicate", "hello there"}, true},
		{"UnknownShorthand", []string{"stats", "-z"}, true},
		{"UnknownGlobalFlag", []string{"--frobnicate", "stats"}, true},
		{"FlagWithoutValue", []string{"retain", "hello there", "--at"}, true},
		{"FlagBadValue", []string{"recall", "--limit", "ten", "Lisbon"}, true},
		{"MissingArg", []string{"recall"}, true},
		{"MissingFile", []string{"import"}, true},
		{"ExtraArg", []string{"stats", "extra"}, true},
		{"TooManyArgs", []string{"retain", "one", "two"}, true},
		{"SubcommandArgs", []string{"bank", "create"}, true},
		{"CompletionArgs", []string{"completion", "bash", "extra"}, true},
		{"CommandsOwn", []string{"import", "--poll", "1s", "x.jsonl"}, true}, // usagef
		{"NotUsage", []string{"recall", "  "}, false},                        // EINVALID from the engine
		{"NotUsageNotFound", []string{"--bank", "nobody", "stats"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root, g := newRootCmd(strings.NewReader(""), &stdout, &stderr)
			root.SetArgs(append([]string{"--db", db}, tt.args...))
			err := root.ExecuteContext(context.Background())
			if cerr := g.closeEngine(); cerr != nil {
				t.Fatal(cerr)
			}
			if err == nil {
				t.Fatalf("mnemo %s: no error", strings.Join(tt.args, " "))
			}
			var ue *usageError
			if got := errors.As(err, &ue); got != tt.usage {
				t.Errorf("mnemo %s: error %q (%T) is a usageError: %v, want %v", strings.Join(tt.args, " "), err, err, got, tt.usage)
			}
			r := mnemoRun(t, db, tt.args...)
			if tt.usage && r.code != exitInvalid {
				t.Errorf("exit code = %d, want %d\n%v", r.code, exitInvalid, r)
			}
			if !tt.usage && r.code == exitOK {
				t.Errorf("exit code = 0, want a failure\n%v", r)
			}
		})
	}
}

// TestUsageError_NoCommand checks that mnemo without a command prints its
// help and succeeds.
func TestUsageError_NoCommand(t *testing.T) {
	r := mnemoRun(t, newDB(t))
	if r.code != exitOK || !strings.Contains(r.stdout, "Available Commands") || r.stderr != "" {
		t.Errorf("got %v, want the help on stdout and exit 0", r)
	}
}

// sizedText returns about size bytes of plain text in n sentences; the
// last sentence holds marker.
func sizedText(size, n int, marker string) string {
	var b strings.Builder
	b.Grow(size + 64)
	per := (size + n - 1) / n
	for i := range n {
		start := b.Len()
		if i == n-1 {
			b.WriteString(marker + " ")
		}
		for w := 0; b.Len()-start < per-7; w++ {
			fmt.Fprintf(&b, "lorem%d ", (i*7919+w)%1000)
		}
		b.WriteString("ipsum. ")
	}
	return b.String()
}

func TestRetain_Large(t *testing.T) {
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
	before := stats(t, db, "default")

	t.Run("10MiB", func(t *testing.T) {
		// Under memory.MaxContentBytes: accepted whole.
		const sentences = 100
		text := sizedText(10<<20, sentences, "Quokka")
		if len(text) < 10<<20 || len(text) > memory.MaxContentBytes {
			t.Fatalf("test text is %d bytes", len(text))
		}
		r := mnemoIn(t, db, strings.NewReader(text), "retain", "-")
		if r.code != exitOK {
			t.Fatal(r)
		}
		st := stats(t, db, "default")
		if got, want := st.Facts, before.Facts+sentences; got != want {
			t.Errorf("facts = %d, want %d", got, want)
		}
		if got, want := st.Documents, before.Documents+1; got != want {
			t.Errorf("documents = %d, want %d", got, want)
		}
		// The last sentence made it: nothing was cut.
		rec := doRecall(t, db, "--limit", "1", "Quokka")
		if len(rec.Results) != 1 || !strings.HasPrefix(rec.Results[0].Text, "Quokka ") {
			t.Errorf("recall Quokka: %d results, first starts %q", len(rec.Results), firstBytes(rec.Results, 40))
		}
	})

	// Over memory.MaxDocumentBytes (a plain-text document that long is
	// retained in segments; retain/segment_test.go): refused whole.
	t.Run("OverLimit", func(t *testing.T) {
		before := stats(t, db, "default")
		text := bytes.Repeat([]byte("Maya moved to Lisbon. "), memory.MaxDocumentBytes/22+1)
		wantFailure(t, mnemoIn(t, db, bytes.NewReader(text), "retain", "-"), exitInvalid, fmt.Sprint(memory.MaxDocumentBytes))
		if got := stats(t, db, "default"); got != before {
			t.Errorf("stats = %+v, want %+v", got, before)
		}
	})

	// Text and speaker count together.
	t.Run("LimitWithSpeaker", func(t *testing.T) {
		before := stats(t, db, "default")
		text := strings.Repeat("Maya moved to Lisbon. ", memory.MaxDocumentBytes/22+1)[:memory.MaxDocumentBytes]
		wantFailure(t, mnemoIn(t, db, strings.NewReader(text), "retain", "--speaker", "Maya", "-"), exitInvalid, fmt.Sprint(memory.MaxDocumentBytes))
		if got := stats(t, db, "default"); got != before {
			t.Errorf("stats = %+v, want %+v", got, before)
		}
	})
}

func firstBytes(rs []recallResult, n int) string {
	if len(rs) == 0 {
		return ""
	}
	return rs[0].Text[:min(n, len(rs[0].Text))]
}

// writeFile writes lines (each followed by a newline) to a file in a
// temporary directory and returns its path.
func writeFile(t *testing.T, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func chatLine(session, speaker, text string) string {
	b, _ := json.Marshal(map[string]string{"session": session, "speaker": speaker, "text": text, "time": "2024-03-04T18:00:00Z"})
	return string(b)
}

func TestImport_BadLines(t *testing.T) {
	db := newDB(t)
	lines := []string{
		chatLine("", "Maya", "I accepted the offer from Northwind Labs."),
		chatLine("", "Tom", "Is that the robotics startup in Lisbon?"),
		`{"speaker": "Maya", "text": "Yes, I lead the perception team"`, // 3: invalid JSON
		chatLine("", "Tom", "I adopted a dog called Biscuit."),
		`{"speaker": "Maya", "time": "2024-03-04T18:00:00Z"}`, // 5: no text
		chatLine("", "Maya", "Send me pictures of Biscuit please."),
		"{\"speaker\": \"Tom\", \"text\": \"Caf\xe9 later?\"}", // 7: invalid UTF-8
		chatLine("", "Tom", "I started training for the Berlin half marathon."),
	}
	bad := []int{3, 5, 7}
	path := writeFile(t, "chat.jsonl", lines...)

	r := mnemoRun(t, db, "import", path)
	if r.code != exitPartial {
		t.Errorf("exit code = %d, want %d\n%v", r.code, exitPartial, r)
	}
	for _, n := range bad {
		if want := fmt.Sprintf("%s:%d: skipped: ", path, n); !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not name line %d (%q):\n%s", n, want, r.stderr)
		}
	}
	if got, want := strings.Count(r.stderr, ": skipped: "), len(bad); got != want {
		t.Errorf("stderr names %d skipped lines, want %d:\n%s", got, want, r.stderr)
	}
	good := len(lines) - len(bad)
	if !strings.Contains(r.stdout, fmt.Sprintf(": %d facts", good)) {
		t.Errorf("stdout = %q, want %d facts", r.stdout, good)
	}
	if st := stats(t, db, "default"); st.Facts != good {
		t.Errorf("facts = %d, want %d (every good line)", st.Facts, good)
	}
	rec := doRecall(t, db, "Berlin half marathon")
	if rankOf(rec.Results, "half marathon") != 0 {
		t.Errorf("the line after the last bad one was not imported: %+v", rec.Results)
	}

	t.Run("JSON", func(t *testing.T) {
		db := newDB(t)
		r := mnemoRun(t, db, "--json", "import", path)
		if r.code != exitPartial {
			t.Errorf("exit code = %d, want %d", r.code, exitPartial)
		}
		var out struct {
			Report   mnemo.ImportReport `json:"report"`
			Problems []struct {
				Line  int    `json:"line"`
				Error string `json:"error"`
			} `json:"problems"`
		}
		decodeStrict(t, r.stdout, &out)
		var got []int
		for _, p := range out.Problems {
			got = append(got, p.Line)
			if p.Error == "" {
				t.Errorf("line %d: no error message", p.Line)
			}
		}
		if !reflect.DeepEqual(got, bad) {
			t.Errorf("problem lines = %v, want %v", got, bad)
		}
		if out.Report.Facts != good || out.Report.Retained != out.Report.Items || len(out.Report.Failed) != 0 {
			t.Errorf("report = %+v, want every item retained with %d facts", out.Report, good)
		}
	})

	t.Run("LineTooLong", func(t *testing.T) {
		db := newDB(t)
		mustRun(t, db, "retain", "--at", "2024-03-04", lisbon)
		before := stats(t, db, "default")
		long := `{"text": "` + strings.Repeat("a", memory.MaxContentBytes) + `"}`
		// The over-long line is skipped, not the whole file (exit 6).
		path := writeFile(t, "long.jsonl", chatLine("", "Maya", "I adopted a dog called Biscuit."), long, chatLine("", "Tom", "I started training for the Berlin half marathon."))
		r := mnemoRun(t, db, "import", path)
		if r.code != exitPartial || !strings.Contains(r.stderr, path+":2: skipped: longer than") {
			t.Errorf("import with an over-long line 2: %v", r)
		}
		if got := stats(t, db, "default").Facts; got != before.Facts+2 {
			t.Errorf("facts = %d, want %d", got, before.Facts+2)
		}
	})

	t.Run("Empty", func(t *testing.T) {
		db := newDB(t)
		path := writeFile(t, "empty.jsonl")
		r := mnemoRun(t, db, "import", path)
		if r.code != exitOK || !strings.Contains(r.stdout, "imported 0 of 0 items") {
			t.Errorf("import of an empty file: %v", r)
		}
	})
}

// Sessions that come back later in the file are not lost.
func TestImport_InterleavedSessions(t *testing.T) {
	db := newDB(t)
	path := writeFile(t, "chat.jsonl",
		chatLine("s1", "Maya", "I accepted the offer from Northwind Labs."),
		chatLine("s2", "Tom", "I adopted a dog called Biscuit."),
		chatLine("s1", "Maya", "I am moving to Lisbon in April."),
		chatLine("s2", "Tom", "Biscuit is a border collie."),
	)
	mustRun(t, db, "import", path)
	if st := stats(t, db, "default"); st.Facts != 4 || st.Documents != 4 {
		t.Errorf("stats = %+v, want 4 facts in 4 documents", st)
	}
	out := mustRun(t, db, "import", path)
	if !strings.Contains(out, "imported 0 of 4 items (4 already known)") {
		t.Errorf("second import printed %q", out)
	}
}

// --db defaults to $MNEMO_DB; the flag wins over the variable.
func TestDB_Env(t *testing.T) {
	envDB, flagDB := newDB(t), newDB(t)
	t.Setenv("MNEMO_DB", envDB)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"retain", "--at", "2024-03-04", lisbon}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("retain without --db: exit %d: %s", code, stderr.String())
	}
	mustRun(t, flagDB, "retain", "--at", "2024-03-04", unrelated[0])
	mustRun(t, flagDB, "retain", "--at", "2024-03-04", unrelated[1])
	if got := stats(t, envDB, "default").Facts; got != 1 {
		t.Errorf("$MNEMO_DB database holds %d facts, want 1", got)
	}
	if got := stats(t, flagDB, "default").Facts; got != 2 {
		t.Errorf("--db database holds %d facts, want 2", got)
	}
}

func TestExitCode(t *testing.T) {
	for code, want := range map[string]int{
		"":                   exitOK,
		memory.EINVALID:      2,
		memory.ENOTFOUND:     3,
		memory.ECONFLICT:     4,
		memory.EUNAVAILABLE:  5,
		memory.EUNAUTHORIZED: 5,
		memory.EINTERNAL:     1,
		"something else":     1,
	} {
		if got := exitCode(code); got != want {
			t.Errorf("exitCode(%q) = %d, want %d", code, got, want)
		}
	}
}

// binary returns the mnemo binary or skips the test.
func binary(t *testing.T) string {
	t.Helper()
	if mnemoBin == "" {
		t.Skip("the go command is not on PATH: no mnemo binary")
	}
	return mnemoBin
}

// exe runs the mnemo binary on db.
func exe(t *testing.T, db string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--db", db}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		// Not t.Fatal: exe runs in goroutines too.
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			fmt.Fprintf(&stderr, "run mnemo: %v", err)
		}
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// Processes starting together on a new file race to create it, apply the
// migrations and create the default bank; all must succeed.
func TestProcesses_NewDatabase(t *testing.T) {
	binary(t)
	db := newDB(t)
	const n = 8
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		wg.Go(func() {
			results[i] = exe(t, db, "retain", "--at", "2024-03-04", fmt.Sprintf("Process %d remembers the number %d.", i, i*i))
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("process %d: %v", i, r)
		}
	}
	if st := stats(t, db, "default"); st.Facts != n {
		t.Errorf("facts = %d, want %d", st.Facts, n)
	}
}

// A writer process imports while others retain and recall on the same
// file: nobody sees "database is locked", and everything lands.
func TestProcesses_ConcurrentWriterReader(t *testing.T) {
	binary(t)
	db := newDB(t)
	mustRun(t, db, "retain", "--at", "2024-03-04", "--speaker", "Maya", lisbon)

	// 200 items: one session each, so one transaction each.
	const items = 200
	var lines []string
	for i := range items {
		lines = append(lines, chatLine(fmt.Sprintf("s%d", i), "Tom", fmt.Sprintf("Note %d: the courier code for parcel%d is zeta%d.", i, i, i)))
	}
	path := writeFile(t, "bulk.jsonl", lines...)

	const retains = 5
	var writers, readers sync.WaitGroup
	done := make(chan struct{})
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	writers.Go(func() {
		if r := exe(t, db, "import", path); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("imported %d of %d items", items, items)) {
			fail("import: %v", r)
		}
	})
	writers.Go(func() {
		for i := range retains {
			if r := exe(t, db, "retain", "--at", "2024-03-05", fmt.Sprintf("Side note %d: locker%d holds the spare keys.", i, i)); r.code != 0 {
				fail("retain %d: %v", i, r)
			}
		}
	})
	recalls := make([]int, 2)
	for g := range recalls {
		readers.Go(func() {
			for {
				select {
				case <-done:
					if recalls[g] >= 3 {
						return
					}
				default:
				}
				r := exe(t, db, "--json", "recall", "Where does Maya work?")
				recalls[g]++
				if r.code != 0 || r.stderr != "" {
					fail("recall %d of reader %d: %v", recalls[g], g, r)
					continue
				}
				var rec recallOut
				if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || rankOf(rec.Results, lisbon) < 0 {
					fail("recall %d of reader %d: Lisbon fact missing: %v %s", recalls[g], g, err, r.stdout)
				}
			}
		})
	}
	// A long-lived reader in this process, recording accesses (writes of
	// its own) as a server would.
	eng, err := mnemo.Open(context.Background(), mnemo.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	engineRecalls := 0
	readers.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			rec, err := eng.Recall(context.Background(), memory.Query{Text: "Where does Maya work?"})
			engineRecalls++
			if err != nil {
				fail("engine recall %d: %v", engineRecalls, err)
				return
			}
			if len(rec.Results) == 0 || rec.Results[0].Fact.Text != lisbon {
				fail("engine recall %d: first result %v", engineRecalls, texts(rec))
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	writers.Wait()
	close(done)
	readers.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("recalls while writing: %v processes per reader, %d in process", recalls, engineRecalls)

	if st := stats(t, db, "default"); st.Facts != 1+items+retains {
		t.Errorf("facts = %d, want %d", st.Facts, 1+items+retains)
	}
	for _, q := range []struct{ query, want string }{
		{"courier code parcel137", "zeta137"},
		{fmt.Sprintf("spare keys locker%d", retains-1), fmt.Sprintf("locker%d ", retains-1)},
	} {
		r := exe(t, db, "--json", "recall", q.query)
		var rec recallOut
		if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || r.code != 0 {
			t.Fatalf("recall %q: %v %v", q.query, err, r)
		}
		if rankOf(rec.Results, q.want) != 0 {
			t.Errorf("recall %q: %q is not first: %+v", q.query, q.want, rec.Results)
		}
		// The long-lived engine's index has caught up too.
		if got := top(t, eng, "default", q.query); !strings.Contains(got, q.want) {
			t.Errorf("engine recall %q = %q, want %q", q.query, got, q.want)
		}
	}
}

// top returns the text of the first result of a recall on eng, or "".
func top(t *testing.T, eng *mnemo.Engine, bank, query string) string {
	t.Helper()
	rec, err := eng.Recall(context.Background(), memory.Query{BankID: bank, Text: query})
	if err != nil {
		t.Fatalf("recall %q: %v", query, err)
	}
	if len(rec.Results) == 0 {
		return ""
	}
	return rec.Results[0].Fact.Text
}

// A long-lived engine sees what another process writes to its file: its
// in-process indexes are refreshed, not served stale.
func TestProcesses_EngineSeesOtherProcess(t *testing.T) {
	binary(t)
	ctx := context.Background()
	db := newDB(t)
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: db, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	at := time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)
	retain := func(text string) {
		t.Helper()
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "default", Text: text, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	other := func(args ...string) {
		t.Helper()
		if r := exe(t, db, args...); r.code != 0 {
			t.Fatalf("mnemo %s: %v", strings.Join(args, " "), r)
		}
	}

	retain(lisbon)
	if got := top(t, eng, "default", "Where does Maya work?"); got != lisbon {
		t.Fatalf("first recall = %q", got)
	}

	// Another process adds a fact after this engine loaded its index.
	kiwi := "Priya adopted a parrot named Kiwi."
	other("retain", "--at", "2024-03-05", kiwi)
	if got := top(t, eng, "default", "parrot Kiwi"); got != kiwi {
		t.Errorf("after another process retained: recall = %q, want %q", got, kiwi)
	}

	// Both write, alternating: this engine's own write must not make it
	// skip the other process's.
	other("retain", "--at", "2024-03-06", "The spare keys are in locker nine.")
	retain("The team offsite is in Sintra in June.")
	other("retain", "--at", "2024-03-07", "Lena repairs vintage bicycles.")
	for _, q := range []struct{ query, want string }{
		{"spare keys locker", "locker nine"},
		{"offsite Sintra", "Sintra"},
		{"vintage bicycles", "bicycles"},
		{"Where does Maya work?", lisbon},
	} {
		if got := top(t, eng, "default", q.query); !strings.Contains(got, q.want) {
			t.Errorf("recall %q = %q, want %q", q.query, got, q.want)
		}
	}

	// Another process replaces an item: the old facts go away here too.
	other("retain", "--id", "fridge", "--at", "2024-03-08", "The fridge code is amber.")
	if got := top(t, eng, "default", "fridge code"); !strings.Contains(got, "amber") {
		t.Errorf("recall fridge = %q, want amber", got)
	}
	other("retain", "--id", "fridge", "--at", "2024-03-08", "The freezer code is cobalt.")
	rec, err := eng.Recall(ctx, memory.Query{BankID: "default", Text: "fridge freezer code amber cobalt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Results) == 0 || !strings.Contains(rec.Results[0].Fact.Text, "cobalt") {
		t.Errorf("after the replacement: %v", texts(rec))
	}
	for _, r := range rec.Results {
		if strings.Contains(r.Fact.Text, "amber") {
			t.Errorf("replaced fact %q still recalled", r.Fact.Text)
		}
	}
}

// A bank deleted and created again by another process is not served from
// this engine's index of the old bank.
func TestProcesses_EngineSeesBankRecreated(t *testing.T) {
	binary(t)
	ctx := context.Background()
	db := newDB(t)
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: db, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "b", Text: "The fridge code is amber."}); err != nil {
		t.Fatal(err)
	}
	if got := top(t, eng, "b", "fridge code"); !strings.Contains(got, "amber") {
		t.Fatalf("recall = %q", got)
	}
	for _, args := range [][]string{{"bank", "delete", "b"}, {"bank", "create", "b"}, {"--bank", "b", "retain", "The freezer code is cobalt."}} {
		if r := exe(t, db, args...); r.code != 0 {
			t.Fatalf("mnemo %s: %v", strings.Join(args, " "), r)
		}
	}
	rec, err := eng.Recall(ctx, memory.Query{BankID: "b", Text: "fridge freezer code amber cobalt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(rec); len(got) != 1 || !strings.Contains(got[0], "cobalt") {
		t.Errorf("recall after the bank was recreated = %q, want only the cobalt fact", got)
	}
}

func texts(rec *memory.Recollection) []string {
	var out []string
	for _, r := range rec.Results {
		out = append(out, r.Fact.Text)
	}
	return out
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
)

// qaTestData is the synthetic LoCoMo-shaped file of package bench.
var qaTestData = filepath.Join("..", "..", "bench", "testdata", "qa-locomo.json")

// qaQuestion is a question of qaTestData as this test reads it.
type qaQuestion struct {
	question, answer string
	category         int
}

func readQAQuestions(t *testing.T) []qaQuestion {
	t.Helper()
	b, err := os.ReadFile(qaTestData)
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		QA []struct {
			Question string          `json:"question"`
			Answer   json.RawMessage `json:"answer"`
			Category int             `json:"category"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var out []qaQuestion
	for _, c := range raw {
		for _, q := range c.QA {
			out = append(out, qaQuestion{q.Question, strings.Trim(string(q.Answer), `"`), q.Category})
		}
	}
	return out
}

// qaScript is what the scripted reader and judge decide: the reader gives
// the gold answer to the questions in right and "I do not know" to the
// others (after delay); the judge labels CORRECT exactly the answers that
// are the gold one, and replies with no label to the question broken.
type qaScript struct {
	gold   map[string]string
	right  map[string]bool
	broken string
	delay  time.Duration

	mu     sync.Mutex
	judged map[string]int // judge calls per question
}

var (
	qaQuestionRE = regexp.MustCompile(`(?m)^Question: (.*)$`)
	qaJudgeRE    = regexp.MustCompile(`real question:\nQuestion: (.*)\nGold answer: (.*)\nGenerated answer: (.*)\n`)
)

// newQAScript makes the reader right on the judged questions whose index
// (in file order, adversarial ones left out) is a multiple of 3, and the
// judge broken on the one numbered broken (-1: none).
func newQAScript(qs []qaQuestion, broken int) *qaScript {
	s := &qaScript{gold: map[string]string{}, right: map[string]bool{}, judged: map[string]int{}}
	n := 0
	for _, q := range qs {
		s.gold[q.question] = q.answer
		if q.category == 5 {
			continue
		}
		s.right[q.question] = n%3 == 0
		if n == broken {
			s.broken = q.question
		}
		n++
	}
	return s
}

func (s *qaScript) serve(srv *llmtest.Server) {
	srv.On(llmtest.Rule{Schema: "qa_judge", Respond: func(r llmtest.Request) llmtest.Reply {
		m := qaJudgeRE.FindStringSubmatch(r.Messages[len(r.Messages)-1].Content)
		if m == nil {
			return llmtest.Reply{Status: http.StatusBadRequest, Content: "no judge prompt"}
		}
		s.mu.Lock()
		s.judged[m[1]]++
		s.mu.Unlock()
		if m[1] == s.broken {
			return llmtest.Reply{Content: "it is right, I think"}
		}
		label := "WRONG"
		if m[3] == m[2] {
			label = "CORRECT"
		}
		return llmtest.Reply{JSON: map[string]string{"label": label}, Usage: memory.Usage{InputTokens: 500, OutputTokens: 7}}
	}})
	srv.On(llmtest.Rule{Contains: "Memories:", Respond: func(r llmtest.Request) llmtest.Reply {
		m := qaQuestionRE.FindStringSubmatch(r.Messages[len(r.Messages)-1].Content)
		if m == nil {
			return llmtest.Reply{Status: http.StatusBadRequest, Content: "no question"}
		}
		ans := "I do not know"
		if s.right[m[1]] {
			ans = s.gold[m[1]]
		}
		return llmtest.Reply{Content: ans, Delay: s.delay, Usage: memory.Usage{InputTokens: 250, OutputTokens: 3}}
	}})
}

// want is the report the script implies: per category, the questions
// with a verdict and the correct ones; and the errors.
func (s *qaScript) want(qs []qaQuestion) (map[string]bench.QAGroup, int) {
	groups := map[string]bench.QAGroup{}
	errs := 0
	for _, c := range []importer.LoCoMoCategory{1, 2, 3, 4} {
		groups[c.String()] = bench.QAGroup{}
	}
	for _, q := range qs {
		if q.category == 5 {
			continue
		}
		name := importer.LoCoMoCategory(q.category).String()
		g := groups[name]
		if q.question == s.broken {
			g.Errors++
			errs++
		} else {
			g.N++
			if s.right[q.question] {
				g.Correct++
			}
			g.Accuracy = float64(g.Correct) / float64(g.N)
		}
		groups[name] = g
	}
	return groups, errs
}

// qaArgs is a bench qa command line against srv, writing out.
func qaArgs(srv *llmtest.Server, out string, extra ...string) []string {
	return append([]string{"--llm", "openai", "--llm-url", srv.URL(), "--llm-model", "reader-x",
		"bench", "qa", "--data", qaTestData, "--out", out, "--judge-llm-model", "judge-y", "--retain-llm=false"}, extra...)
}

func isolateConfig(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, k := range []string{"MNEMO_CONFIG", "MNEMO_LLM", "MNEMO_LLM_URL", "MNEMO_LLM_MODEL", "MNEMO_EMBED", "MNEMO_RERANK"} {
		t.Setenv(k, "")
	}
}

func checkQAReport(t *testing.T, stdout string, want map[string]bench.QAGroup, errs int) bench.QAReport {
	t.Helper()
	var rep bench.QAReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	for name, w := range want {
		if got := rep.Categories[name]; got != w {
			t.Errorf("%s: got %+v, the script decided %+v", name, got, w)
		}
	}
	if rep.Errors != errs || rep.Skipped != 2 {
		t.Errorf("errors %d skipped %d, want %d and 2", rep.Errors, rep.Skipped, errs)
	}
	return rep
}

// verdictLines counts the verdict lines of each question in an answers
// file.
func verdictLines(t *testing.T, path string) map[string]int {
	t.Helper()
	n := map[string]int{}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return n
	}
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r bench.QARecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Kind == "answer" && r.Verdict != "" {
			n[r.ID]++
		}
	}
	return n
}

func TestBenchQA_EndToEnd(t *testing.T) {
	isolateConfig(t)
	qs := readQAQuestions(t)
	sc := newQAScript(qs, 4)
	srv := llmtest.NewServer()
	defer srv.Close()
	sc.serve(srv)
	out := filepath.Join(t.TempDir(), "answers.jsonl")

	r := mnemoRun(t, newDB(t), qaArgs(srv, out, "--concurrency", "3", "--json")...)
	if r.code != exitPartial || !strings.Contains(r.stderr, "1 questions have no verdict") {
		t.Fatalf("a run with a broken judge reply: %v", r)
	}
	want, errs := sc.want(qs)
	rep := checkQAReport(t, r.stdout, want, errs)
	if rep.Reader != "openai:reader-x" || rep.Judge != "openai:judge-y" || rep.JudgePrompt != bench.JudgeLoCoMo {
		t.Errorf("reader %q judge %q prompt %q", rep.Reader, rep.Judge, rep.JudgePrompt)
	}
	if rep.Tokens.ReaderInput != 250*10 || rep.Tokens.JudgeInput != 500*9 {
		t.Errorf("tokens %+v, want the scripted usage summed", rep.Tokens)
	}
	if rep.ReaderMS.P50 <= 0 || rep.ContextMS.P95 <= 0 {
		t.Errorf("latencies %+v %+v", rep.ReaderMS, rep.ContextMS)
	}

	// The judge mends: the rerun asks only the failed question again.
	broken := sc.broken
	sc.broken = ""
	r = mnemoRun(t, newDB(t), qaArgs(srv, out, "--json")...)
	if r.code != exitOK {
		t.Fatalf("rerun: %v", r)
	}
	want, _ = sc.want(qs)
	rep = checkQAReport(t, r.stdout, want, 0)
	if rep.Resumed != 9 {
		t.Errorf("resumed %d verdicts, want 9", rep.Resumed)
	}
	for q, n := range sc.judged {
		if n != 1 && q != broken { // broken: its malformed reply was retried once, then asked again
			t.Errorf("%q judged %d times", q, n)
		}
	}
	for id, n := range verdictLines(t, out) {
		if n != 1 {
			t.Errorf("%s has %d verdict lines", id, n)
		}
	}

	// Another judge on the same file is refused.
	r = mnemoRun(t, newDB(t), qaArgs(srv, out, "--judge-llm-model", "judge-z")...)
	wantFailure(t, r, exitConflict, "judge", "another --out")
}

func TestBenchQA_Errors(t *testing.T) {
	isolateConfig(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "a.jsonl")
	db := newDB(t)
	wantFailure(t, mnemoRun(t, db, "bench", "qa", "--out", out), exitInvalid, "--data")
	wantFailure(t, mnemoRun(t, db, "bench", "qa", "--data", qaTestData), exitInvalid, "--out")
	wantFailure(t, mnemoRun(t, db, "bench", "qa", "--data", qaTestData, "--out", out), exitInvalid, "reader model")
	wantFailure(t, mnemoRun(t, db, qaArgs(srv, out, "--mode", "guess")...), exitInvalid, "--mode")
	missing := filepath.Join(t.TempDir(), "none.json")
	args := qaArgs(srv, out)
	for i, a := range args {
		if a == qaTestData {
			args[i] = missing
		}
	}
	r := mnemoRun(t, db, args...)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "none.json") {
		t.Errorf("a missing data file: %v", r)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed start wrote an answers file")
	}

	wantFailure(t, mnemoRun(t, db, qaArgs(srv, out, "--mode", "reflect")...), exitInvalid, "--retain-llm")
	wantFailure(t, mnemoRun(t, db, qaArgs(srv, out, "--judge-prompt", "strict")...), exitInvalid, "--judge-prompt")

	// A judge that rejects the key stops the run: every question would
	// fail alike.
	srv.On(llmtest.Rule{Contains: "Memories:", Reply: llmtest.Reply{Content: "Pepper"}})
	srv.On(llmtest.Rule{Schema: "qa_judge", Reply: llmtest.Reply{Status: http.StatusUnauthorized, Content: "invalid api key"}})
	wantFailure(t, mnemoRun(t, db, qaArgs(srv, out)...), exitUnavailable, "judge")
}

// LongMemEval data is detected and graded with LongMemEval's prompts
// through the command too.
func TestBenchQA_LongMemEval(t *testing.T) {
	isolateConfig(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.On(llmtest.Rule{Contains: "Memories:", Reply: llmtest.Reply{Content: "Porto"}})
	srv.On(llmtest.Rule{Contains: "Which city did I move to", Reply: llmtest.Reply{Content: "yes"}})
	srv.On(llmtest.Rule{Contains: "Answer yes or no only.", Reply: llmtest.Reply{Content: "no"}})
	args := qaArgs(srv, filepath.Join(t.TempDir(), "lme.jsonl"), "--json")
	for i, a := range args {
		if a == qaTestData {
			args[i] = filepath.Join("..", "..", "importer", "testdata", "longmemeval-tiny.json")
		}
	}
	r := mnemoRun(t, newDB(t), args...)
	if r.code != exitOK {
		t.Fatalf("%v", r)
	}
	var rep bench.QAReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != "longmemeval" || rep.JudgePrompt != bench.JudgeLongMemEval || rep.Overall.N != 4 || rep.Overall.Correct != 1 ||
		rep.Categories["single-session-user"].Correct != 1 || rep.Skipped != 0 {
		t.Errorf("report %+v", rep)
	}
}

// TestBenchQA_Killed kills a bench qa process (SIGKILL) mid-run and runs
// it again: every question ends with exactly one verdict, and the totals
// are what the script decided.
func TestBenchQA_Killed(t *testing.T) {
	bin := binary(t)
	isolateConfig(t)
	qs := readQAQuestions(t)
	sc := newQAScript(qs, -1)
	sc.delay = 150 * time.Millisecond
	srv := llmtest.NewServer()
	defer srv.Close()
	sc.serve(srv)
	dir := t.TempDir()
	out := filepath.Join(dir, "answers.jsonl")
	args := qaArgs(srv, out, "--concurrency", "2", "--json")

	cmd := exec.Command(bin, append([]string{"--db", filepath.Join(dir, "unused.db")}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(verdictLines(t, out)) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no three verdicts within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	before := len(verdictLines(t, out))
	if before >= 10 {
		t.Fatalf("the run finished (%d verdicts) before it was killed", before)
	}

	r := exe(t, filepath.Join(dir, "unused.db"), args...)
	if r.code != exitOK {
		t.Fatalf("rerun after the kill: %v", r)
	}
	want, _ := sc.want(qs)
	rep := checkQAReport(t, r.stdout, want, 0)
	if rep.Resumed != before || rep.Overall.N != 10 {
		t.Errorf("resumed %d of %d verdicts, %d judged; want %d resumed and 10 judged", rep.Resumed, before, rep.Overall.N, before)
	}
	lines := verdictLines(t, out)
	if len(lines) != 10 {
		t.Errorf("%d questions with a verdict, want 10", len(lines))
	}
	for id, n := range lines {
		if n != 1 {
			t.Errorf("%s has %d verdict lines, want exactly 1", id, n)
		}
	}
	// A question in flight at the kill may have been judged by the
	// killed process without its line being written: at most one extra
	// judge call per concurrent slot.
	extra := 0
	for _, n := range sc.judged {
		extra += n - 1
	}
	if extra > 2 {
		t.Errorf("%d judge calls beyond one per question, want at most 2 (the kill's in-flight ones)", extra)
	}
	t.Logf("killed after %d of 10 verdicts; the rerun answered %d", before, 10-before)
}

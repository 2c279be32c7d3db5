package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/reflection"
)

const qaLoCoMo = "testdata/qa-locomo.json"

// lockedEngine makes the fake engine safe for RunQA's concurrent
// recalls, and gives each recollection a context: its facts, one a line,
// dated like recall's.
type lockedEngine struct {
	mu sync.Mutex
	e  *fakeEngine
}

func (l *lockedEngine) CreateBank(ctx context.Context, name string) (*memory.Bank, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.e.CreateBank(ctx, name)
}

func (l *lockedEngine) Retain(ctx context.Context, req memory.RetainRequest) (*memory.RetainResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.e.Retain(ctx, req)
}

func (l *lockedEngine) Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, err := l.e.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range rec.Results {
		b.WriteString("- " + r.Fact.Body() + "\n")
	}
	rec.Context = b.String()
	rec.Tokens = len(strings.Fields(rec.Context))
	return rec, nil
}

// fakeReflector is an engine with Reflect: it answers from a script and
// records the requests.
type fakeReflector struct {
	*lockedEngine
	mu      sync.Mutex
	answers map[string]string // by question (the first line of the request)
	asked   []reflection.Request
}

func (f *fakeReflector) Reflect(ctx context.Context, bank string, req reflection.Request) (reflection.Result, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req)
	f.mu.Unlock()
	q, _, _ := strings.Cut(req.Question, "\n")
	a, ok := f.answers[q]
	if !ok {
		return reflection.Result{}, memory.Errorf(memory.EUNAVAILABLE, "no answer scripted")
	}
	return reflection.Result{Answer: a, MemoryIDs: []string{bank + "/m1"}, Calls: 2, InputTokens: 300, OutputTokens: 12}, nil
}

// rawQA is a LoCoMo file's questions as the test reads them, apart from
// the code under test.
type rawQA struct {
	conv, question, answer string
	category               int
}

func readRawQA(t *testing.T, path string) []rawQA {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		SampleID string `json:"sample_id"`
		QA       []struct {
			Question string          `json:"question"`
			Answer   json.RawMessage `json:"answer"`
			Category int             `json:"category"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var out []rawQA
	for _, c := range raw {
		for _, q := range c.QA {
			var a string
			if json.Unmarshal(q.Answer, &a) != nil && string(q.Answer) != "null" {
				a = string(q.Answer) // a number: its JSON text
			}
			out = append(out, rawQA{c.SampleID, q.Question, a, q.Category})
		}
	}
	return out
}

var (
	questionRE = regexp.MustCompile(`(?m)^Question: (.*)$`)
	judgeRE    = regexp.MustCompile(`real question:\nQuestion: (.*)\nGold answer: (.*)\nGenerated answer: (.*)\n`)
)

// script is what the scripted models decide: the reader answers the gold
// answer to the questions in right and "I do not know" to the others; the
// judge says CORRECT exactly when the generated answer is the gold one,
// and replies with no label at all to the question in broken.
type script struct {
	gold   map[string]string // question → gold answer
	right  map[string]bool
	broken string
}

func (s *script) serve(srv *llmtest.Server) {
	srv.On(llmtest.Rule{Schema: "qa_judge", Respond: func(r llmtest.Request) llmtest.Reply {
		m := judgeRE.FindStringSubmatch(lastUser(r))
		if m == nil {
			return llmtest.Reply{Status: http.StatusBadRequest, Content: "no judge prompt"}
		}
		if m[1] == s.broken {
			return llmtest.Reply{Content: "Looks fine to me.", Usage: memory.Usage{InputTokens: 400, OutputTokens: 5}}
		}
		label := VerdictWrong
		if m[3] == m[2] {
			label = VerdictCorrect
		}
		return llmtest.Reply{JSON: map[string]string{"label": label}, Usage: memory.Usage{InputTokens: 400, OutputTokens: 6}}
	}})
	srv.On(llmtest.Rule{Contains: "Memories:", Respond: func(r llmtest.Request) llmtest.Reply {
		m := questionRE.FindStringSubmatch(lastUser(r))
		if m == nil {
			return llmtest.Reply{Status: http.StatusBadRequest, Content: "no question"}
		}
		if s.right[m[1]] {
			return llmtest.Reply{Content: s.gold[m[1]], Usage: memory.Usage{InputTokens: 200, OutputTokens: 4}}
		}
		return llmtest.Reply{Content: "I do not know", Usage: memory.Usage{InputTokens: 200, OutputTokens: 4}}
	}})
}

func lastUser(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// newScript decides, for the questions of qs, that the reader is right
// on every other judged question, and that the judge breaks on brokenIdx
// (-1: never).
func newScript(qs []rawQA, brokenIdx int) *script {
	s := &script{gold: map[string]string{}, right: map[string]bool{}}
	n := 0
	for _, q := range qs {
		s.gold[q.question] = q.answer
		if q.category == 5 {
			continue
		}
		if n%2 == 0 {
			s.right[q.question] = true
		}
		if n == brokenIdx {
			s.broken = q.question
		}
		n++
	}
	return s
}

// expect is the report the script implies: per category name, the judged
// questions and the correct ones, the errors, and the skipped count.
func (s *script) expect(qs []rawQA) (groups map[string]QAGroup, errs, skipped int) {
	groups = map[string]QAGroup{}
	for _, q := range qs {
		if q.category == 5 {
			skipped++
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
		}
		groups[name] = g
	}
	return groups, errs, skipped
}

func newQAEngine() *lockedEngine { return &lockedEngine{e: newFakeEngine()} }

func models(srv *llmtest.Server) (reader, judge memory.LLM) {
	return openai.New(openai.Config{BaseURL: srv.URL(), Model: "reader-x"}), openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge-y"})
}

func readRecords(t *testing.T, path string) (QAHeader, []QARecord) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var h QAHeader
	var recs []QARecord
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var r QARecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		recs = append(recs, r)
	}
	return h, recs
}

func TestRunQA_LoCoMo(t *testing.T) {
	qs := readRawQA(t, qaLoCoMo)
	sc := newScript(qs, 3)
	srv := llmtest.NewServer()
	defer srv.Close()
	sc.serve(srv)
	reader, judge := models(srv)
	data, err := LoadQA(qaLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	rep, err := RunQA(context.Background(), newQAEngine(), data, QAOptions{Reader: reader, Judge: judge, AnswersPath: out, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}

	groups, errs, skipped := sc.expect(qs)
	var all QAGroup
	for name, want := range groups {
		want.Accuracy = ratio(want.Correct, want.N)
		if got := rep.Categories[name]; got != want {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
		all.N += want.N
		all.Correct += want.Correct
		all.Errors += want.Errors
	}
	all.Accuracy = ratio(all.Correct, all.N)
	if rep.Overall != all {
		t.Errorf("overall %+v, want %+v", rep.Overall, all)
	}
	if rep.Errors != errs || errs != 1 || rep.Skipped != skipped || skipped != 2 {
		t.Errorf("errors %d skipped %d, want %d and %d", rep.Errors, rep.Skipped, errs, skipped)
	}
	if !slices.Equal(rep.SkippedCategories, []string{"adversarial"}) {
		t.Errorf("skipped categories %v", rep.SkippedCategories)
	}
	if len(rep.FirstErrors) != 1 || !strings.Contains(rep.FirstErrors[0], "judge") {
		t.Errorf("first errors %v, want the broken judge reply", rep.FirstErrors)
	}
	judged := 10 - errs
	if want := (QATokens{ReaderInput: 200 * 10, ReaderOutput: 4 * 10, JudgeInput: 400 * judged, JudgeOutput: 6 * judged, Questions: 10}); rep.Tokens.ReaderInput != want.ReaderInput ||
		rep.Tokens.ReaderOutput != want.ReaderOutput || rep.Tokens.JudgeInput != want.JudgeInput || rep.Tokens.JudgeOutput != want.JudgeOutput || rep.Tokens.Questions != want.Questions {
		t.Errorf("tokens %+v, want %+v", rep.Tokens, want)
	}
	if rep.Tokens.Context == 0 || rep.ReaderMS.P50 <= 0 || rep.JudgeMS.P95 <= 0 {
		t.Errorf("no context tokens or latencies: %+v %+v %+v", rep.Tokens, rep.ReaderMS, rep.JudgeMS)
	}

	// The reader saw recall's context and the conversation's date; no
	// adversarial question reached a model.
	for _, r := range srv.ChatRequests() {
		if strings.Contains(lastUser(r), "What colour is Theo's cat?") || strings.Contains(lastUser(r), "What did Lena restore?") {
			t.Errorf("an adversarial question was asked: %q", lastUser(r))
		}
		if r.Schema == "" && strings.Contains(lastUser(r), "Mira's cat") {
			if !strings.Contains(lastUser(r), "Today's date: 20 April 2024") || !strings.Contains(lastUser(r), "Pepper") {
				t.Errorf("reader prompt without the date or the context: %q", lastUser(r))
			}
		}
	}

	// Every question answered is one line, with the verdict the script
	// decided.
	h, recs := readRecords(t, out)
	if h.Format != "locomo" || h.Reader != "openai:reader-x" || h.Judge != "openai:judge-y" || h.JudgePrompt != JudgeLoCoMo || h.Data != data.Digest {
		t.Errorf("header %+v", h)
	}
	if len(recs) != 10 {
		t.Fatalf("%d records, want 10", len(recs))
	}
	for _, r := range recs {
		switch {
		case r.Question == sc.broken:
			if r.Verdict != "" || !strings.Contains(r.Error, "judge") {
				t.Errorf("%s: verdict %q error %q, want a judge error", r.ID, r.Verdict, r.Error)
			}
		case sc.right[r.Question] != (r.Verdict == VerdictCorrect):
			t.Errorf("%s: verdict %q, the script made the reader right: %v", r.ID, r.Verdict, sc.right[r.Question])
		}
		if r.Gold != sc.gold[r.Question] || len(r.MemoryIDs) == 0 {
			t.Errorf("%s: gold %q memory ids %v", r.ID, r.Gold, r.MemoryIDs)
		}
	}
}

// A run stopped part-way resumes from its answers file: only the
// questions without a verdict are asked again, and the totals are those
// of an uninterrupted run.
func TestRunQA_Resume(t *testing.T) {
	qs := readRawQA(t, qaLoCoMo)
	sc := newScript(qs, 3)
	srv := llmtest.NewServer()
	defer srv.Close()
	sc.serve(srv)
	reader, judge := models(srv)
	data, err := LoadQA(qaLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	full, err := RunQA(ctx, newQAEngine(), data, QAOptions{Reader: reader, Judge: judge, AnswersPath: filepath.Join(dir, "full.jsonl")})
	if err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(dir, "answers.jsonl")
	eng := newQAEngine()
	if _, err := RunQA(ctx, eng, data, QAOptions{Reader: reader, Judge: judge, AnswersPath: out, MaxQuestions: 4, Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	// A kill while writing leaves half a line.
	f, err := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"answer","id":"qa-2/q0","verd`)
	f.Close()

	srv.Reset()
	sc.serve(srv)
	rep, err := RunQA(ctx, eng, data, QAOptions{Reader: reader, Judge: judge, AnswersPath: out})
	if err != nil {
		t.Fatal(err)
	}
	readerCalls := 0
	for _, r := range srv.ChatRequests() {
		if r.Schema == "" {
			readerCalls++
		}
	}
	// 10 judged questions: 4 done (one of them the broken judge, which is
	// retried), so 7 asked again.
	if readerCalls != 7 {
		t.Errorf("the resumed run asked the reader %d times, want 7", readerCalls)
	}
	if rep.Resumed != 3 {
		t.Errorf("resumed %d verdicts, want 3", rep.Resumed)
	}
	if rep.Overall != full.Overall || !mapsEqual(rep.Categories, full.Categories) || rep.Errors != full.Errors {
		t.Errorf("resumed totals %+v %v (errors %d), an uninterrupted run's %+v %v (errors %d)", rep.Overall, rep.Categories, rep.Errors, full.Overall, full.Categories, full.Errors)
	}
	_, recs := readRecords(t, out)
	verdicts := map[string]int{}
	for _, r := range recs {
		if r.Verdict != "" {
			verdicts[r.ID]++
		}
	}
	for id, n := range verdicts {
		if n != 1 {
			t.Errorf("%s judged %d times in the file", id, n)
		}
	}
	if len(verdicts) != 9 {
		t.Errorf("%d questions with a verdict, want 9", len(verdicts))
	}
}

func mapsEqual(a, b map[string]QAGroup) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// An answers file of another dataset or configuration is refused, named,
// and left as it was.
func TestRunQA_OtherRun(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	qs := readRawQA(t, qaLoCoMo)
	newScript(qs, -1).serve(srv)
	reader, judge := models(srv)
	data, err := LoadQA(qaLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	ctx := context.Background()
	if _, err := RunQA(ctx, newQAEngine(), data, QAOptions{Reader: reader, Judge: judge, AnswersPath: out, MaxQuestions: 2}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(out)
	other := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge-z"})
	lme, err := LoadQA("../importer/testdata/longmemeval-tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data *QAData
		opts QAOptions
		want string
	}{
		{"judge", data, QAOptions{Reader: reader, Judge: other, AnswersPath: out}, "judge"},
		{"budget", data, QAOptions{Reader: reader, Judge: judge, AnswersPath: out, Budget: 999}, "budget"},
		{"dataset", lme, QAOptions{Reader: reader, Judge: judge, AnswersPath: out}, "dataset"},
	} {
		_, err := RunQA(ctx, newQAEngine(), tt.data, tt.opts)
		if memory.ErrorCode(err) != memory.ECONFLICT || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "another --out") {
			t.Errorf("%s: err = %v, want a conflict naming the %s", tt.name, err, tt.want)
		}
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Error("a refused answers file was changed")
	}
	notOurs := filepath.Join(t.TempDir(), "notes.jsonl")
	os.WriteFile(notOurs, []byte("{\"speaker\":\"a\",\"text\":\"b\"}\n"), 0o644)
	if _, err := RunQA(ctx, newQAEngine(), data, QAOptions{Reader: reader, Judge: judge, AnswersPath: notOurs}); err == nil || !strings.Contains(err.Error(), "not a bench qa answers file") {
		t.Errorf("a foreign file: err = %v", err)
	}
}

func TestRunQA_Reflect(t *testing.T) {
	qs := readRawQA(t, qaLoCoMo)
	sc := newScript(qs, -1)
	srv := llmtest.NewServer()
	defer srv.Close()
	sc.serve(srv)
	_, judge := models(srv)
	data, err := LoadQA(qaLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	refl := &fakeReflector{lockedEngine: newQAEngine(), answers: map[string]string{}}
	for q := range sc.gold {
		refl.answers[q] = "I do not know"
		if sc.right[q] {
			refl.answers[q] = sc.gold[q]
		}
	}
	rep, err := RunQA(context.Background(), refl, data, QAOptions{Mode: QAModeReflect, ReaderName: "engine-llm", Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	groups, _, _ := sc.expect(qs)
	for name, want := range groups {
		want.Accuracy = ratio(want.Correct, want.N)
		if got := rep.Categories[name]; got != want {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
	if rep.Reader != "engine-llm" || rep.Mode != QAModeReflect {
		t.Errorf("report names reader %q mode %q", rep.Reader, rep.Mode)
	}
	if rep.Tokens.ReaderInput != 300*10 || rep.Tokens.ReaderOutput != 12*10 {
		t.Errorf("reader tokens %+v, want reflect's", rep.Tokens)
	}
	if len(refl.asked) != 10 {
		t.Errorf("reflect asked %d times, want 10", len(refl.asked))
	}
	for _, req := range refl.asked {
		if !strings.Contains(req.Question, "(Today's date: ") {
			t.Errorf("reflect question without its date: %q", req.Question)
		}
	}
	for _, r := range srv.ChatRequests() {
		if r.Schema != "qa_judge" {
			t.Errorf("reflect mode called the reader model: %q", lastUser(r))
		}
	}

	_, err = RunQA(context.Background(), newQAEngine(), data, QAOptions{Mode: QAModeReflect, Judge: judge})
	if err == nil || !strings.Contains(err.Error(), "reflect mode needs") {
		t.Errorf("reflect on an engine without Reflect: err = %v", err)
	}
}

// LongMemEval data is graded with LongMemEval's own prompts, per question
// type and for abstention; a reply with neither yes nor no is an error.
func TestRunQA_LongMemEval(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.On(llmtest.Rule{Contains: "Memories:", Reply: llmtest.Reply{Content: "Porto"}})
	srv.On(llmtest.Rule{Contains: "plants", Reply: llmtest.Reply{Content: "Hmm."}})
	srv.On(llmtest.Rule{Contains: "Question: Which city did I move to", Reply: llmtest.Reply{Content: "Yes."}})
	srv.On(llmtest.Rule{Contains: "Answer yes or no only.", Reply: llmtest.Reply{Content: "no"}})
	reader, judge := models(srv)
	data, err := LoadQA("../importer/testdata/longmemeval-tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunQA(context.Background(), newQAEngine(), data, QAOptions{Reader: reader, Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	if rep.JudgePrompt != JudgeLongMemEval || rep.Format != "longmemeval" {
		t.Errorf("format %q judge prompt %q", rep.Format, rep.JudgePrompt)
	}
	want := map[string]QAGroup{
		"single-session-user":      {N: 2, Correct: 1, Accuracy: 0.5}, // t1 right, t3_abs "Porto" is no abstention
		"knowledge-update":         {Errors: 1},                       // the judge said "Hmm."
		"single-session-assistant": {N: 1},
	}
	if !mapsEqual(rep.Categories, want) {
		t.Errorf("categories %+v, want %+v", rep.Categories, want)
	}
	prompts := map[string]string{}
	for _, r := range srv.ChatRequests() {
		if strings.Contains(lastUser(r), "Answer yes or no only.") {
			for _, id := range []string{"goldfish", "plants", "novel", "city"} {
				if strings.Contains(lastUser(r), id) {
					prompts[id] = lastUser(r)
				}
			}
		}
	}
	if !strings.HasPrefix(prompts["goldfish"], "I will give you an unanswerable question") {
		t.Errorf("abstention question judged with %q", prompts["goldfish"])
	}
	if !strings.Contains(prompts["plants"], "updated answer") {
		t.Errorf("knowledge-update question judged with %q", prompts["plants"])
	}
	if !strings.HasPrefix(prompts["city"], "I will give you a question, a correct answer") || strings.Contains(prompts["city"], "off-by-one") {
		t.Errorf("single-session-user question judged with %q", prompts["city"])
	}
}

// A provider fault of the judge is that question's error; a rejected key
// stops the run.
func TestRunQA_JudgeFaults(t *testing.T) {
	data, err := LoadQA(qaLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.On(llmtest.Rule{Contains: "Memories:", Reply: llmtest.Reply{Content: "Pepper"}})
	srv.On(llmtest.Rule{Schema: "qa_judge", Contains: "Mira's cat", Reply: llmtest.Reply{Status: http.StatusInternalServerError, Content: "boom"}})
	srv.On(llmtest.Rule{Schema: "qa_judge", Reply: llmtest.Reply{JSON: map[string]string{"label": "MAYBE"}}})
	reader, judge := models(srv)
	rep, err := RunQA(context.Background(), newQAEngine(), data, QAOptions{Reader: reader, Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 10 || rep.Overall.N != 0 {
		t.Errorf("errors %d judged %d, want every question an error", rep.Errors, rep.Overall.N)
	}

	srv.Reset()
	srv.On(llmtest.Rule{Contains: "Memories:", Reply: llmtest.Reply{Content: "Pepper"}})
	srv.On(llmtest.Rule{Schema: "qa_judge", Reply: llmtest.Reply{Status: http.StatusUnauthorized, Content: "bad key"}})
	_, err = RunQA(context.Background(), newQAEngine(), data, QAOptions{Reader: reader, Judge: judge})
	if memory.ErrorCode(err) != memory.EUNAUTHORIZED {
		t.Errorf("a rejected judge key: err = %v, want the run stopped with EUNAUTHORIZED", err)
	}
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		prompt  string
		resp    memory.ChatResponse
		want    string
		wantErr bool
	}{
		{JudgeLoCoMo, memory.ChatResponse{JSON: json.RawMessage(`{"label":"CORRECT"}`)}, VerdictCorrect, false},
		{JudgeLoCoMo, memory.ChatResponse{JSON: json.RawMessage(`{"label":"WRONG"}`)}, VerdictWrong, false},
		{JudgeLoCoMo, memory.ChatResponse{Content: `{"label": "CORRECT"}`}, VerdictCorrect, false},
		{JudgeLoCoMo, memory.ChatResponse{JSON: json.RawMessage(`{"label":"correct"}`)}, "", true},
		{JudgeLoCoMo, memory.ChatResponse{Content: "CORRECT"}, "", true},
		{JudgeLongMemEval, memory.ChatResponse{Content: "Yes."}, VerdictCorrect, false},
		{JudgeLongMemEval, memory.ChatResponse{Content: "No"}, VerdictWrong, false},
		{JudgeLongMemEval, memory.ChatResponse{Content: "unsure"}, "", true},
	}
	for _, tt := range tests {
		got, err := verdict(tt.prompt, &tt.resp)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("verdict(%s, %+v) = %q, %v; want %q, error %v", tt.prompt, tt.resp, got, err, tt.want, tt.wantErr)
		}
	}
}

// The LoCoMo dev split reads with every judged question's answer (numbers
// as text), category 5 marked skipped, and the LongMemEval schema fixture
// with its dates as each question's now.
func TestLoadQA_Shared(t *testing.T) {
	path := sharedFile(t, "data", "locomo-dev.json")
	data, err := LoadQA(path)
	if err != nil {
		t.Fatal(err)
	}
	qs := readRawQA(t, path)
	judged, skipped, got := 0, 0, 0
	for _, q := range qs {
		if q.category == 5 {
			skipped++
		} else {
			judged++
		}
	}
	i := 0
	for _, sp := range data.Spaces {
		if len(sp.Requests) == 0 {
			t.Errorf("%s: nothing to retain", sp.ID)
		}
		for _, q := range sp.Questions {
			raw := qs[i]
			i++
			if q.Question != raw.question || q.Skip != (raw.category == 5) {
				t.Fatalf("%s: %q skip %v, the file has %q category %d", q.ID, q.Question, q.Skip, raw.question, raw.category)
			}
			if q.Skip {
				got++
				continue
			}
			if q.Answer == "" || q.Answer != raw.answer || q.Now.IsZero() {
				t.Errorf("%s: answer %q now %v, the file has %q", q.ID, q.Answer, q.Now, raw.answer)
			}
		}
	}
	if i != len(qs) || got != skipped || judged+skipped != len(qs) || skipped == 0 {
		t.Errorf("read %d questions (%d skipped), the file has %d (%d of category 5)", i, got, len(qs), skipped)
	}
	t.Logf("%d questions judged, %d skipped", judged, skipped)

	lme, err := LoadQA(sharedFile(t, "bench", "longmemeval_format_fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	if lme.Format != importer.FormatLongMemEval || len(lme.Spaces) != 4 {
		t.Fatalf("format %q, %d spaces", lme.Format, len(lme.Spaces))
	}
	for _, sp := range lme.Spaces {
		q := sp.Questions[0]
		if q.Now.IsZero() || q.Answer == "" || q.Abstention != strings.HasSuffix(q.ID, "_abs") {
			t.Errorf("%s: %+v", q.ID, q)
		}
	}
}

package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/reflection"
)

// Question-answering modes: how the answer to a question is made.
const (
	// QAModeRecall builds a context with recall and asks the reader
	// model.
	QAModeRecall = "recall"
	// QAModeReflect asks the engine's reflect, whose model is the reader.
	QAModeReflect = "reflect"
)

// DefaultQAConcurrency is how many questions a question-answering run
// answers at once unless told otherwise: small, because each costs
// provider calls and providers limit rates.
const DefaultQAConcurrency = 4

// Reflector is an engine that answers a question from a bank with its
// own model loop (mnemo.Engine.Reflect). Reflect mode needs one.
type Reflector interface {
	Reflect(ctx context.Context, bank string, req reflection.Request) (reflection.Result, error)
}

// QAOptions tunes [RunQA].
type QAOptions struct {
	// Mode is QAModeRecall ("" too) or QAModeReflect.
	Mode string
	// Reader answers from recall's context (recall mode; required there).
	Reader memory.LLM
	// ReaderName names the reader in reflect mode, where it is the
	// engine's model; in recall mode Reader.Name() is used.
	ReaderName string
	// Judge grades each answer against the gold answer; required.
	Judge memory.LLM
	// JudgePrompt is JudgeLoCoMo or JudgeLongMemEval; "" means the
	// dataset's own (JudgeLoCoMo for LoCoMo, JudgeLongMemEval for
	// LongMemEval).
	JudgePrompt string
	// Limit and Budget are passed to each recall (0: recall's defaults).
	Limit, Budget int
	// Concurrency is how many questions are answered at once; 0 means
	// DefaultQAConcurrency.
	Concurrency int
	// MaxQuestions, when positive, answers only the first MaxQuestions
	// judged questions of the file (a trial run); spaces without one are
	// not retained.
	MaxQuestions int
	// BankPrefix is put before each space's id to name its bank.
	BankPrefix string
	// AnswersPath is the answers file: every answer and verdict, one JSON
	// line each after a header ([QAHeader], [QARecord]). It is the run's
	// checkpoint: a run on an existing file skips the questions it has
	// verdicts for, retries those it has errors for, and refuses a file
	// of another dataset or configuration. "" keeps the answers in memory
	// only.
	AnswersPath string
	// Engine describes the engine's settings for the answers file's
	// header (extraction, embedder); a resumed file must match it.
	Engine string
	// Progress, when set, is called after each step with the steps done
	// and the total: one step per retained document and per question.
	Progress func(done, total int)
}

// QAReport is the outcome of [RunQA]: accuracy per category and overall,
// tokens and latency, over every question of the dataset that has a
// verdict in the answers file (this run's and a resumed file's).
type QAReport struct {
	Format      string `json:"format"`
	Mode        string `json:"mode"`
	Reader      string `json:"reader"`
	Judge       string `json:"judge"`
	JudgePrompt string `json:"judge_prompt"`
	// Overall is over every judged question (micro average).
	Overall QAGroup `json:"overall"`
	// Categories holds one group per category, by name.
	Categories map[string]QAGroup `json:"categories"`
	// Order is the categories' report order.
	Order []string `json:"-"`
	// Skipped counts the questions left out by convention (LoCoMo
	// category 5); SkippedCategories names their categories.
	Skipped           int      `json:"skipped"`
	SkippedCategories []string `json:"skipped_categories,omitempty"`
	// Errors counts the questions without a verdict because their reader
	// or judge failed; Unanswered those not reached (MaxQuestions).
	Errors     int `json:"errors"`
	Unanswered int `json:"unanswered"`
	// Resumed counts the verdicts read from the answers file rather than
	// made by this run.
	Resumed int `json:"resumed"`
	// Tokens sums the reader's and the judge's tokens over the questions
	// with a record.
	Tokens QATokens `json:"tokens"`
	// ContextMS, ReaderMS and JudgeMS are the per-question latencies of
	// building the context (recall), the reader (or reflect) and the
	// judge, over the questions with a verdict.
	ContextMS Latency `json:"context_ms"`
	ReaderMS  Latency `json:"reader_ms"`
	JudgeMS   Latency `json:"judge_ms"`
	// Documents and Facts count what this run retained (duplicates of a
	// kept database count as documents, with no facts).
	Documents int `json:"documents"`
	Facts     int `json:"facts"`
	// FirstErrors are up to five question errors, for the text report.
	FirstErrors []string `json:"first_errors,omitempty"`
}

// QAGroup is the accuracy of a group of questions.
type QAGroup struct {
	// N counts the questions with a verdict; Correct those judged
	// CORRECT; Accuracy is Correct/N (0 when N is 0).
	N        int     `json:"n"`
	Correct  int     `json:"correct"`
	Accuracy float64 `json:"accuracy"`
	// Errors counts the group's questions without a verdict.
	Errors int `json:"errors"`
}

// QATokens sums tokens over questions.
type QATokens struct {
	ReaderInput  int `json:"reader_input"`
	ReaderOutput int `json:"reader_output"`
	JudgeInput   int `json:"judge_input"`
	JudgeOutput  int `json:"judge_output"`
	// Context sums recall's context sizes (recall mode).
	Context int `json:"context"`
	// Questions is how many records the sums cover.
	Questions int `json:"questions"`
}

// RunQA runs a question-answering benchmark of eng on data. For each
// space with a question still to answer it creates the bank
// opts.BankPrefix + space id (or takes the existing one: a resumed run
// on a kept database), retains the space's documents (those already
// stored are duplicates the engine skips), then answers its questions,
// opts.Concurrency at a time: recall builds a context and opts.Reader
// answers from it (or, in reflect mode, eng's Reflect answers), and
// opts.Judge grades the answer against the gold one. Every answer and
// verdict is appended to the answers file as it is made.
//
// Retain, recall and answers-file failures, a rejected provider key and
// ctx stop the run with an error; what was written stays, and the next
// run on the same file resumes. A reader or judge failure (after the
// provider's retries), a reflect failure and a judge reply that names no
// verdict are that question's error, counted in the report. RunQA calls
// eng's Recall (or Reflect) from several goroutines at once; the other
// calls come from one.
func RunQA(ctx context.Context, eng Engine, data *QAData, opts QAOptions) (*QAReport, error) {
	mode := opts.Mode
	if mode == "" {
		mode = QAModeRecall
	}
	var refl Reflector
	readerName := opts.ReaderName
	switch mode {
	case QAModeRecall:
		if opts.Reader == nil {
			return nil, memory.Errorf(memory.EINVALID, "bench qa: recall mode needs a reader model")
		}
		readerName = opts.Reader.Name()
	case QAModeReflect:
		var ok bool
		if refl, ok = eng.(Reflector); !ok {
			return nil, memory.Errorf(memory.EINVALID, "bench qa: reflect mode needs an engine with Reflect")
		}
	default:
		return nil, memory.Errorf(memory.EINVALID, "bench qa: mode %q: want %s or %s", mode, QAModeRecall, QAModeReflect)
	}
	if opts.Judge == nil {
		return nil, memory.Errorf(memory.EINVALID, "bench qa: no judge model")
	}
	prompt := opts.JudgePrompt
	if prompt == "" {
		prompt = JudgeLoCoMo
		if data.Format == importer.FormatLongMemEval {
			prompt = JudgeLongMemEval
		}
	}
	if prompt != JudgeLoCoMo && prompt != JudgeLongMemEval {
		return nil, memory.Errorf(memory.EINVALID, "bench qa: judge prompt %q: want %s or %s", prompt, JudgeLoCoMo, JudgeLongMemEval)
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = DefaultQAConcurrency
	}

	h := QAHeader{
		Format: string(data.Format), Data: data.Digest, Mode: mode,
		Reader: readerName, Judge: opts.Judge.Name(),
		ReaderPrompt: QAReaderPrompt, JudgePrompt: prompt,
		Limit: opts.Limit, Budget: opts.Budget, Engine: opts.Engine,
	}
	if mode == QAModeReflect {
		h.ReaderPrompt, h.Limit, h.Budget = "", 0, 0 // reflect's own
	}
	answers := &qaAnswers{records: map[string]*QARecord{}}
	if opts.AnswersPath != "" {
		var err error
		if answers, err = openQAAnswers(opts.AnswersPath, h); err != nil {
			return nil, err
		}
		defer answers.Close()
	}

	// The work: per space, the questions to answer now.
	type job struct {
		space *QASpace
		todo  []*QAQuestion
	}
	var jobs []job
	total, selected := 0, 0
	for _, sp := range data.Spaces {
		j := job{space: sp}
		for i := range sp.Questions {
			q := &sp.Questions[i]
			if q.Skip {
				continue
			}
			if opts.MaxQuestions > 0 && selected >= opts.MaxQuestions {
				break
			}
			selected++
			if !answers.judged(q.ID) {
				j.todo = append(j.todo, q)
			}
		}
		if len(j.todo) > 0 {
			jobs = append(jobs, j)
			total += len(sp.Requests) + len(j.todo)
		}
	}
	r := &qaRun{eng: eng, refl: refl, opts: opts, mode: mode, prompt: prompt, answers: answers, total: total}

	rep := &QAReport{Format: string(data.Format), Mode: mode, Reader: readerName, Judge: opts.Judge.Name(), JudgePrompt: prompt}
	for _, j := range jobs {
		name := opts.BankPrefix + j.space.ID
		bank, err := eng.CreateBank(ctx, name)
		switch {
		case memory.ErrorCode(err) == memory.ECONFLICT:
			bank = &memory.Bank{ID: name} // a kept database: resume into it
		case err != nil:
			return nil, fmt.Errorf("create bank %s: %w", name, err)
		}
		for _, req := range j.space.Requests {
			req.BankID = bank.ID
			facts, _, err := retainTimed(ctx, eng, req)
			if err != nil {
				return nil, err
			}
			rep.Documents++
			rep.Facts += facts
			r.step()
		}
		if err := r.answerAll(ctx, bank.ID, j.todo, conc); err != nil {
			return nil, err
		}
	}
	r.report(rep, data, opts.MaxQuestions)
	return rep, nil
}

// qaRun is the state of one RunQA.
type qaRun struct {
	eng     Engine
	refl    Reflector
	opts    QAOptions
	mode    string
	prompt  string
	answers *qaAnswers

	mu          sync.Mutex
	done, total int
	made        map[string]bool // questions given a record by this run
}

func (r *qaRun) step() {
	r.mu.Lock()
	r.done++
	done := r.done
	r.mu.Unlock()
	if r.opts.Progress != nil {
		r.opts.Progress(done, r.total)
	}
}

// answerAll answers qs from bank, conc at a time, and records each. It
// returns the first error that stops the run.
func (r *qaRun) answerAll(ctx context.Context, bank string, qs []*QAQuestion, conc int) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
loop:
	for _, q := range qs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rec, err := r.answer(ctx, bank, q)
			if err == nil {
				err = r.answers.Append(rec)
			}
			if err != nil {
				cancel(err)
				return
			}
			r.mu.Lock()
			if r.made == nil {
				r.made = map[string]bool{}
			}
			r.made[q.ID] = true
			r.mu.Unlock()
			r.step()
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// answer makes q's record: context, answer and verdict, with tokens and
// times. Its error stops the run; a failure of q's own is in the
// record's Error.
func (r *qaRun) answer(ctx context.Context, bank string, q *QAQuestion) (*QARecord, error) {
	rec := &QARecord{ID: q.ID, Category: q.Category, Question: q.Question, Gold: q.Answer}
	fail := func(stage string, err error) (*QARecord, error) {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if memory.ErrorCode(err) == memory.EUNAUTHORIZED {
			return nil, fmt.Errorf("%s: %w", stage, err) // every question would fail alike
		}
		rec.Error = stage + ": " + err.Error()
		return rec, nil
	}
	if r.mode == QAModeReflect {
		start := time.Now()
		res, err := r.refl.Reflect(ctx, bank, reflection.Request{Question: reflectQuestion(q)})
		rec.ReaderMS = millis(time.Since(start))
		if err != nil {
			return fail("reflect", err)
		}
		rec.Answer = strings.TrimSpace(res.Answer)
		rec.MemoryIDs = res.MemoryIDs
		rec.ReaderInputTokens, rec.ReaderOutputTokens = res.InputTokens, res.OutputTokens
	} else {
		start := time.Now()
		got, err := r.eng.Recall(ctx, memory.Query{BankID: bank, Text: q.Question, Limit: r.opts.Limit, Budget: r.opts.Budget, Now: q.Now})
		rec.ContextMS = millis(time.Since(start))
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, fmt.Errorf("recall %s: %w", q.ID, err)
		}
		rec.MemoryIDs = RankedRefs(got)
		rec.ContextTokens = got.Tokens
		start = time.Now()
		resp, err := r.opts.Reader.Chat(ctx, &memory.ChatRequest{
			Stage:    "qa-reader",
			System:   readerSystem,
			Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: readerPrompt(got.Context, q.Question, q.Now)}},
		})
		rec.ReaderMS = millis(time.Since(start))
		if err != nil {
			return fail("reader", err)
		}
		rec.Answer = strings.TrimSpace(resp.Content)
		rec.ReaderInputTokens, rec.ReaderOutputTokens = resp.Usage.InputTokens, resp.Usage.OutputTokens
	}

	start := time.Now()
	resp, err := r.opts.Judge.Chat(ctx, judgeRequest(r.prompt, q, rec.Answer))
	rec.JudgeMS = millis(time.Since(start))
	if err != nil {
		return fail("judge", err)
	}
	rec.JudgeInputTokens, rec.JudgeOutputTokens = resp.Usage.InputTokens, resp.Usage.OutputTokens
	rec.Judged = resp.Content
	if rec.Judged == "" && len(resp.JSON) > 0 {
		rec.Judged = string(resp.JSON)
	}
	v, err := verdict(r.prompt, resp)
	if err != nil {
		return fail("judge", err)
	}
	rec.Verdict = v
	return rec, nil
}

// report fills rep from the answers file's records of data's questions.
func (r *qaRun) report(rep *QAReport, data *QAData, maxQuestions int) {
	rep.Categories = map[string]QAGroup{}
	rep.Order = append(rep.Order, data.Categories...)
	for _, c := range data.Categories {
		rep.Categories[c] = QAGroup{}
	}
	var ctxLat, readLat, judgeLat []time.Duration
	skippedCats := map[string]bool{}
	selected := 0
	for _, sp := range data.Spaces {
		for i := range sp.Questions {
			q := &sp.Questions[i]
			if q.Skip {
				rep.Skipped++
				if !skippedCats[q.Category] {
					skippedCats[q.Category] = true
					rep.SkippedCategories = append(rep.SkippedCategories, q.Category)
				}
				continue
			}
			selected++
			rec := r.answers.record(q.ID)
			if rec == nil || maxQuestions > 0 && selected > maxQuestions {
				rep.Unanswered++
				continue
			}
			g, ok := rep.Categories[q.Category]
			if !ok {
				rep.Order = append(rep.Order, q.Category)
			}
			rep.Tokens.Questions++
			rep.Tokens.ReaderInput += rec.ReaderInputTokens
			rep.Tokens.ReaderOutput += rec.ReaderOutputTokens
			rep.Tokens.JudgeInput += rec.JudgeInputTokens
			rep.Tokens.JudgeOutput += rec.JudgeOutputTokens
			rep.Tokens.Context += rec.ContextTokens
			if rec.Verdict == "" {
				g.Errors++
				rep.Overall.Errors++
				rep.Errors++
				if len(rep.FirstErrors) < 5 {
					rep.FirstErrors = append(rep.FirstErrors, q.ID+": "+rec.Error)
				}
				rep.Categories[q.Category] = g
				continue
			}
			if !r.made[q.ID] {
				rep.Resumed++
			}
			g.N++
			rep.Overall.N++
			if rec.Verdict == VerdictCorrect {
				g.Correct++
				rep.Overall.Correct++
			}
			rep.Categories[q.Category] = g
			ctxLat = append(ctxLat, msDuration(rec.ContextMS))
			readLat = append(readLat, msDuration(rec.ReaderMS))
			judgeLat = append(judgeLat, msDuration(rec.JudgeMS))
		}
	}
	for name, g := range rep.Categories {
		g.Accuracy = ratio(g.Correct, g.N)
		rep.Categories[name] = g
	}
	rep.Overall.Accuracy = ratio(rep.Overall.Correct, rep.Overall.N)
	rep.ContextMS, rep.ReaderMS, rep.JudgeMS = Percentiles(ctxLat), Percentiles(readLat), Percentiles(judgeLat)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// WriteText writes r as a human-readable table: one row per category and
// one overall (accuracy, n, errors), then skipped questions, tokens and
// latencies, and the first errors.
func (r *QAReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s mode: reader %s, judge %s (%s prompt)\n", r.Format, r.Mode, r.Reader, r.Judge, r.JudgePrompt)
	fmt.Fprintf(&b, "%-26s %5s %8s %9s %6s\n", "category", "n", "correct", "accuracy", "errors")
	row := func(name string, g QAGroup) {
		fmt.Fprintf(&b, "%-26s %5d %8d %9.4f %6d\n", name, g.N, g.Correct, g.Accuracy, g.Errors)
	}
	for _, c := range r.Order {
		row(c, r.Categories[c])
	}
	row("overall", r.Overall)
	if r.Skipped > 0 {
		fmt.Fprintf(&b, "skipped by convention: %d questions (%s)\n", r.Skipped, strings.Join(r.SkippedCategories, ", "))
	}
	if r.Unanswered > 0 {
		fmt.Fprintf(&b, "not answered: %d questions\n", r.Unanswered)
	}
	if r.Resumed > 0 {
		fmt.Fprintf(&b, "resumed: %d verdicts from the answers file\n", r.Resumed)
	}
	if n := r.Tokens.Questions; n > 0 {
		fmt.Fprintf(&b, "tokens per question: reader %.0f in, %.0f out; judge %.0f in, %.0f out; context %.0f\n",
			float64(r.Tokens.ReaderInput)/float64(n), float64(r.Tokens.ReaderOutput)/float64(n),
			float64(r.Tokens.JudgeInput)/float64(n), float64(r.Tokens.JudgeOutput)/float64(n), float64(r.Tokens.Context)/float64(n))
	}
	fmt.Fprintf(&b, "latency per question (p50 / p95 ms): context %.1f / %.1f, reader %.1f / %.1f, judge %.1f / %.1f\n",
		r.ContextMS.P50, r.ContextMS.P95, r.ReaderMS.P50, r.ReaderMS.P95, r.JudgeMS.P50, r.JudgeMS.P95)
	for _, e := range r.FirstErrors {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/anthropic"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

// qaFlags are mnemo bench qa's own flags.
type qaFlags struct {
	data, out, mode, judgePrompt     string
	judge, judgeURL, judgeModel      string
	concurrency, limit, budget, maxQ int
	retainLLM                        bool
}

func newBenchQACmd(g *globals) *cobra.Command {
	f := &qaFlags{}
	cmd := &cobra.Command{
		Use:   "qa",
		Short: "End-to-end question answering (LoCoMo J, LongMemEval): retain, recall or reflect, a reader model answers, a judge model grades",
		Long: `End-to-end question answering on a LoCoMo or LongMemEval file.

Each conversation (LoCoMo) or haystack (LongMemEval) is retained into its
own bank; then, for each question, recall builds the context and the
reader model (--llm) answers from it (or, with --mode reflect, the engine's
reflect answers), and the judge model (--judge-llm) grades the answer
against the gold one: LoCoMo with the LLM-as-judge prompt of the published
LoCoMo "J" figures, LongMemEval with its own prompts. LoCoMo's category 5
(adversarial) is skipped, as those figures do. See docs/qa.md.

Every answer and verdict goes to --out, one JSON line each. It is the
checkpoint: run the same command again after an interruption and only the
questions without a verdict are asked (those that failed are retried); a
file of another dataset or setting is refused. The bench database is kept
beside it (--out plus ".db"), so a resumed run retains nothing twice.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return g.benchQA(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.data, "data", "", "LoCoMo or LongMemEval JSON file (required)")
	fl.StringVar(&f.out, "out", "", "answers file (JSONL), the run's checkpoint (required); the database goes beside it (+.db)")
	fl.StringVar(&f.mode, "mode", bench.QAModeRecall, "recall (recall builds the context, --llm answers) or reflect (the engine's reflect answers)")
	fl.StringVar(&f.judge, "judge-llm", "", "judge provider: openai or anthropic (default: the --llm provider; key: MNEMO_JUDGE_LLM_API_KEY, else the provider's)")
	fl.StringVar(&f.judgeURL, "judge-llm-url", "", "judge base URL (default: --llm-url when the judge's provider is the reader's)")
	fl.StringVar(&f.judgeModel, "judge-llm-model", "", "judge model (default: --llm-model when the judge's provider is the reader's)")
	fl.StringVar(&f.judgePrompt, "judge-prompt", "", "locomo-j or longmemeval (default: the dataset's own)")
	fl.IntVar(&f.concurrency, "concurrency", bench.DefaultQAConcurrency, "questions answered at once")
	fl.IntVar(&f.limit, "limit", 0, "results per recall (default: recall's)")
	fl.IntVar(&f.budget, "budget", 0, "context token budget per recall (default: recall's)")
	fl.IntVar(&f.maxQ, "max-questions", 0, "answer only the first N judged questions (a trial run)")
	fl.BoolVar(&f.retainLLM, "retain-llm", true, "extract with --llm when retaining (false: the heuristic extractor; --llm only answers)")
	return cmd
}

// benchQA runs mnemo bench qa.
func (g *globals) benchQA(cmd *cobra.Command, f *qaFlags) error {
	if f.data == "" {
		return usagef("--data FILE is required (a LoCoMo or LongMemEval JSON file)")
	}
	if f.out == "" {
		return usagef("--out FILE is required: the answers file, which a rerun resumes")
	}
	if f.mode != bench.QAModeRecall && f.mode != bench.QAModeReflect {
		return usagef("--mode %q: want recall or reflect", f.mode)
	}
	if f.judgePrompt != "" && f.judgePrompt != bench.JudgeLoCoMo && f.judgePrompt != bench.JudgeLongMemEval {
		return usagef("--judge-prompt %q: want %s or %s", f.judgePrompt, bench.JudgeLoCoMo, bench.JudgeLongMemEval)
	}
	if f.concurrency < 1 {
		return usagef("--concurrency must be at least 1")
	}
	if f.mode == bench.QAModeReflect && !f.retainLLM {
		return usagef("--mode reflect answers with the engine's --llm: drop --retain-llm=false")
	}
	if u, _ := cmd.Flags().GetString("db-url"); u != "" {
		return usagef("bench qa keeps its database beside --out; --db-url is not supported")
	}
	data, err := bench.LoadQA(f.data)
	if err != nil {
		return memory.Errorf(memory.EINVALID, "%v", err)
	}

	ctx := cmd.Context()
	cfg := mnemo.Config{AccessFlush: -1, JobPoll: -1, WarmRecall: true}
	if err := g.configure(ctx, &cfg); err != nil {
		return err
	}
	if cfg.LLM == nil {
		return usagef("bench qa needs a reader model: --llm openai or anthropic, with its key (see docs/qa.md)")
	}
	reader := cfg.Guard.LLM(cfg.LLM)
	judge, err := g.judgeLLM(f)
	if err != nil {
		return err
	}
	judge = cfg.Guard.LLM(judge)
	extract := reader.Name()
	if !f.retainLLM {
		cfg.LLM = nil
		extract = "heuristic"
	}
	cfg.DB = f.out + ".db"
	eng, err := mnemo.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer eng.Close()

	rep, err := bench.RunQA(ctx, eng, data, bench.QAOptions{
		Mode: f.mode, Reader: reader, ReaderName: reader.Name(), Judge: judge, JudgePrompt: f.judgePrompt,
		Limit: f.limit, Budget: f.budget, Concurrency: f.concurrency, MaxQuestions: f.maxQ,
		AnswersPath: f.out,
		Engine:      fmt.Sprintf("extract=%s embed=%s rerank=%s", extract, g.embedName(), g.prov.rerank),
		Progress:    g.progress(g.stderr, "qa"),
	})
	if err != nil {
		if ctx.Err() != nil {
			return &interruptedError{fmt.Sprintf("interrupted; the answers so far are in %s: run the same command again to resume", f.out)}
		}
		return err
	}
	if g.json {
		err = g.printJSON(rep)
	} else {
		err = rep.WriteText(g.stdout)
	}
	if err != nil {
		return err
	}
	if rep.Errors > 0 {
		return &partialError{fmt.Sprintf("%d questions have no verdict (reader or judge errors, in %s); run the same command again to retry them", rep.Errors, f.out)}
	}
	return nil
}

// embedName names the embedder the flags chose, for the answers file's
// header.
func (g *globals) embedName() string {
	e := g.prov.embed
	if e == "" {
		e = "hash"
	}
	if e == "openai" {
		m := g.prov.embedModel
		if m == "" {
			m = defaultEmbedModel
		}
		e += ":" + m
	}
	return e
}

// judgeLLM builds the judge model from --judge-llm, --judge-llm-url and
// --judge-llm-model; each defaults to the reader's setting when the
// judge's provider is the reader's. The key is MNEMO_JUDGE_LLM_API_KEY,
// else the reader's key sources when the provider is the reader's, else
// the provider's own variable.
func (g *globals) judgeLLM(f *qaFlags) (memory.LLM, error) {
	reader := strings.ToLower(g.prov.llm)
	name := strings.ToLower(f.judge)
	if name == "" {
		name = reader
	}
	url, model := f.judgeURL, f.judgeModel
	same := name == reader
	if same && url == "" {
		url = g.prov.llmURL
	}
	if same && model == "" {
		model = g.prov.llmModel
	}
	switch name {
	case "openai":
		if model == "" {
			model = defaultOpenAIModel
		}
		key := firstEnv("MNEMO_JUDGE_LLM_API_KEY", "OPENAI_API_KEY")
		if same {
			key = firstEnv("MNEMO_JUDGE_LLM_API_KEY", "MNEMO_LLM_API_KEY", "OPENAI_API_KEY")
		}
		if key == "" && url == "" {
			return nil, usagef("--judge-llm openai needs a key: set OPENAI_API_KEY (or MNEMO_JUDGE_LLM_API_KEY), or --judge-llm-url for a local server that needs none")
		}
		return openai.New(openai.Config{BaseURL: url, APIKey: key, Model: model}), nil
	case "anthropic":
		if model == "" {
			model = defaultAnthropicModel
		}
		key := firstEnv("MNEMO_JUDGE_LLM_API_KEY", "ANTHROPIC_API_KEY")
		if same {
			key = firstEnv("MNEMO_JUDGE_LLM_API_KEY", "MNEMO_LLM_API_KEY", "ANTHROPIC_API_KEY")
		}
		if key == "" && url == "" {
			return nil, usagef("--judge-llm anthropic needs a key: set ANTHROPIC_API_KEY (or MNEMO_JUDGE_LLM_API_KEY)")
		}
		return anthropic.New(anthropic.Config{BaseURL: url, APIKey: key, Model: model}), nil
	}
	return nil, usagef("--judge-llm %q: want openai or anthropic", f.judge)
}

// The engine answers reflect mode itself.
var _ bench.Reflector = (*mnemo.Engine)(nil)

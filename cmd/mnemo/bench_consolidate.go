package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"regexp"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/bench"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/spf13/cobra"
)

// newBenchConsolidateCmd is `mnemo bench consolidate`: the cost of a
// full (nightly) consolidation run over a generated bank.
func newBenchConsolidateCmd(g *globals) *cobra.Command {
	var facts int
	var seed int64
	var scripted, dreams bool
	cmd := &cobra.Command{
		Use:   "consolidate",
		Short: "Cost of a full consolidation run (every pass) over a generated bank: wall time, LLM calls and tokens per pass",
		Long: `Fill a temporary bank with a generated conversation bank (--facts, a
share of it said twice), then run every consolidation pass once, as the
nightly run does, and report each pass's wall time, LLM calls, tokens and
counts.

The bank is retained offline. With --scripted the passes talk to a
scripted model on 127.0.0.1 that speaks the OpenAI API and answers every
consolidation prompt from what the prompt offers (no network, no key):
what the passes cost in calls, tokens and time with a model that answers
at once. Without it, the passes use the model --llm names, or skip the
passes that need one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if facts <= 0 {
				return usagef("--facts must be positive")
			}
			ctx := cmd.Context()
			keep, _ := cmd.Flags().GetBool("keep")
			eng, path, cleanup, err := g.benchEngine(cmd, keep)
			if err != nil {
				return err
			}
			defer cleanup()
			consolidate := eng.ConsolidateAll
			if scripted {
				srv := llmtest.NewServer()
				defer srv.Close()
				srv.SetRecording(false)
				srv.On(llmtest.Rule{Respond: scriptedConsolidation})
				cfg := mnemo.Config{AccessFlush: -1, JobPoll: -1, WarmRecall: true}
				if err := g.configure(ctx, &cfg); err != nil {
					return err
				}
				cfg.DB = path
				// The consolidation clock runs from just after the
				// generated bank's newest document: its last days are
				// "recent", as a live bank's are tonight.
				offset := bench.SyntheticNewest(facts, seed).Add(time.Hour).Sub(time.Now())
				cfg.Now = func() time.Time { return time.Now().Add(offset) }
				cfg.LLM = openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "scripted", Model: "scripted"})
				consolidate = func(ctx context.Context, bank string) ([]*memory.Run, error) {
					ceng, err := mnemo.Open(ctx, cfg)
					if err != nil {
						return nil, err
					}
					defer ceng.Close()
					if dreams {
						if _, err := ceng.SetConsolidationSettings(ctx, bank, map[string]string{"dreams": "on"}); err != nil {
							return nil, err
						}
					}
					return ceng.ConsolidateAll(ctx, bank)
				}
			}
			rep, err := bench.RunConsolidation(ctx, eng, consolidate, bench.ConsolidationOptions{Facts: facts, Seed: seed, Progress: g.progress(g.stderr, "retain")})
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(rep)
			}
			return rep.WriteText(g.stdout)
		},
	}
	cmd.Flags().IntVar(&facts, "facts", 10000, "facts to generate")
	cmd.Flags().Int64Var(&seed, "seed", 1, "generator seed")
	cmd.Flags().BoolVar(&scripted, "scripted", false, "consolidate with a scripted local model (no network, no key)")
	cmd.Flags().BoolVar(&dreams, "dreams", false, "with --scripted: turn the dream pass on for the bank (it is off by default)")
	return cmd
}

// scriptedConsolidation answers a consolidation prompt the way a
// cautious model would, from what the prompt holds: it leaves most
// things as they are (skip, keep, different) and never invents ids. It
// answers every schema a pass asks for; an unknown one gets an HTTP 500,
// which the pass reports as a failure.
func scriptedConsolidation(r llmtest.Request) llmtest.Reply {
	usage := memory.Usage{InputTokens: promptTokens(r), OutputTokens: 30}
	reply, ok := scriptedReplies[r.Schema]
	if !ok {
		return llmtest.Reply{Status: 500, Content: fmt.Sprintf("scripted model: no answer for schema %q", r.Schema)}
	}
	b, _ := json.Marshal(reply(r))
	return llmtest.Reply{Content: string(b), Usage: usage}
}

// scriptedReplies maps each consolidation schema to its answer.
var scriptedReplies = map[string]func(llmtest.Request) any{
	// Every fact it is shown scores 0.5.
	"importance": func(r llmtest.Request) any {
		var scores []map[string]any
		for _, id := range factIDs(r) {
			scores = append(scores, map[string]any{"fact": id, "importance": 0.5})
		}
		return map[string]any{"scores": scores}
	},
	// Every candidate is a different fact.
	"fact_merge": func(r llmtest.Request) any {
		ids := factIDs(r)
		verdicts := []map[string]any{}
		for _, id := range ids {
			verdicts = append(verdicts, map[string]any{"candidate": id, "verdict": "different"})
		}
		return map[string]any{"verdicts": verdicts}
	},
	// The group's first fact stands for it.
	"group_summary": func(r llmtest.Request) any {
		first, _, _ := strings.Cut(lastUser(r), "\n")
		_, text, _ := strings.Cut(first, ". ")
		return map[string]any{"summary": cmp.Or(text, "a summary")}
	},
	// No pattern found.
	"temporal_patterns": func(llmtest.Request) any { return map[string]any{"patterns": []any{}} },
	// A fact joins the most similar observation offered when it is on
	// the same topic (the observation names the fact's topic: its
	// speaker and first word); else one fact in eight starts an
	// observation of its topic and the others are skipped.
	"observation": func(r llmtest.Request) any {
		prompt := lastUser(r)
		fact, rest, _ := strings.Cut(strings.TrimPrefix(prompt, "NEW FACT: "), "\n")
		if _, after, ok := strings.Cut(fact, "] "); ok {
			fact = after
		}
		topic := "topic " + strings.Join(strings.Fields(fact)[:min(2, len(strings.Fields(fact)))], " ")
		first, _, _ := strings.Cut(strings.TrimLeft(rest, "\n"), "\n")
		if strings.Contains(rest, "EXISTING OBSERVATIONS, most similar first") {
			_, first, _ = strings.Cut(rest, "most similar first:\n")
			first, _, _ = strings.Cut(first, "\n")
		}
		if strings.Contains(first, topic+":") {
			return map[string]any{"action": "update", "observation": 1, "text": topic + ": often, " + fact, "kind": "pattern", "reason": "more evidence"}
		}
		if crc32.ChecksumIEEE([]byte(fact))%8 == 0 {
			return map[string]any{"action": "create", "observation": 0, "text": topic + ": " + fact, "kind": "pattern", "reason": "new pattern"}
		}
		return map[string]any{"action": "skip", "observation": 0, "text": "", "kind": "pattern", "reason": "one-off"}
	},
	// Each pair of clusters gets a bridge (dreams are on only when a
	// bank turns them on).
	"dream": func(r llmtest.Request) any {
		return map[string]any{"bridge": "both involve planning ahead", "insight": "The way they plan trips mirrors how they plan meals."}
	},
	// The evaluator keeps the first candidate.
	"dream_evaluation": func(llmtest.Request) any {
		return map[string]any{"selected": []int{0}, "reasoning": "the first surprises"}
	},
	// Observations stay apart.
	"observation_merge": func(llmtest.Request) any {
		return map[string]any{"action": "keep", "text": "", "reason": "distinct"}
	},
	// A community is named after its most connected entity.
	"community_summary": func(r llmtest.Request) any {
		first, _, _ := strings.Cut(strings.TrimPrefix(lastUser(r), "ENTITIES (most connected first):\n- "), " (")
		return map[string]any{"name": "around " + first, "summary": first + " and the others come up together."}
	},
}

// factIDRE matches the fact ids a prompt shows.
var factIDRE = regexp.MustCompile(`\bf_[0-9a-z]{20,}\b`)

// factIDs are the fact ids of r's last user message, each once, in order.
func factIDs(r llmtest.Request) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range factIDRE.FindAllString(lastUser(r), -1) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// lastUser is the content of r's last user message.
func lastUser(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// promptTokens estimates a request's input tokens: 4 bytes a token.
func promptTokens(r llmtest.Request) int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Content)
	}
	return n/4 + 1
}

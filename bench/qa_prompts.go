package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Judge prompts: which grading prompt a run uses. A figure is comparable
// with another only when both were graded with the same prompt.
const (
	// JudgeLoCoMo is the LLM-as-judge prompt behind the published LoCoMo
	// "J" figures (Mem0's evaluation, evaluation/metrics/llm_judge.py in
	// mem0ai/mem0): a generous CORRECT / WRONG against the gold answer,
	// asked for as JSON {"label": …}. The default for LoCoMo data.
	JudgeLoCoMo = "locomo-j"
	// JudgeLongMemEval is LongMemEval's own grading
	// (src/evaluation/evaluate_qa.py in xiaowu0162/LongMemEval): a yes /
	// no prompt per question type, another one for abstention questions.
	// The default for LongMemEval data.
	JudgeLongMemEval = "longmemeval"
)

// Verdicts a judge gives.
const (
	VerdictCorrect = "CORRECT"
	VerdictWrong   = "WRONG"
)

// QAReaderPrompt names the reader prompt below; it is recorded in an
// answers file, and a change of the prompt must change it.
const QAReaderPrompt = "mnemo-qa-reader/1"

// readerSystem is mnemo's reader prompt: it answers a question from the
// context recall built. It asks for what the published LoCoMo readers ask
// for (a short answer, dates made absolute, the latest memory winning)
// in its own words; docs/qa.md compares it with theirs.
const readerSystem = `You answer questions about people from memories of their past conversations.

You are given memories, each with the date it was said, and a question.
- Answer from the memories only. If they do not contain the answer, say that you do not know.
- Dates matter: when a memory says "last year" or "two weeks ago", work out the actual date from the memory's own date, and answer with that date, month or year, not with the relative phrase.
- If memories contradict each other, the most recent one is right.
- Do not confuse people named in the memories with the speakers.
- Answer in a short phrase (about five or six words), with no explanation.`

// readerPrompt is the user message of a reader call.
func readerPrompt(context, question string, now time.Time) string {
	var b strings.Builder
	b.WriteString("Memories:\n")
	if strings.TrimSpace(context) == "" {
		b.WriteString("(none)\n")
	} else {
		b.WriteString(context)
		if !strings.HasSuffix(context, "\n") {
			b.WriteByte('\n')
		}
	}
	if !now.IsZero() {
		fmt.Fprintf(&b, "\nToday's date: %s\n", now.UTC().Format("2 January 2006"))
	}
	fmt.Fprintf(&b, "\nQuestion: %s\nAnswer:", question)
	return b.String()
}

// reflectQuestion is the question reflect mode asks: the question with
// its reference date, which reflect has no other way to be given.
func reflectQuestion(q *QAQuestion) string {
	if q.Now.IsZero() {
		return q.Question
	}
	return fmt.Sprintf("%s\n(Today's date: %s.)", q.Question, q.Now.UTC().Format("2 January 2006"))
}

// locomoJudgePrompt is the grading prompt of Mem0's LoCoMo evaluation
// (ACCURACY_PROMPT of evaluation/metrics/llm_judge.py, mem0ai/mem0,
// Apache-2.0), kept word for word (its typographic quotes included)
// because a "J" figure is only comparable when graded by this text. The
// three %s are the question, the gold answer and the generated answer.
const locomoJudgePrompt = `
Your task is to label an answer to a question as ’CORRECT’ or ’WRONG’. You will be given the following data:
    (1) a question (posed by one user to another user), 
    (2) a ’gold’ (ground truth) answer, 
    (3) a generated answer
which you will score as CORRECT/WRONG.

The point of the question is to ask about something one user should know about the other user based on their prior conversations.
The gold answer will usually be a concise and short answer that includes the referenced topic, for example:
Question: Do you remember what I got the last time I went to Hawaii?
Gold answer: A shell necklace
The generated answer might be much longer, but you should be generous with your grading - as long as it touches on the same topic as the gold answer, it should be counted as CORRECT. 

For time related questions, the gold answer will be a specific date, month, year, etc. The generated answer might be much longer or use relative time references (like "last Tuesday" or "next month"), but you should be generous with your grading - as long as it refers to the same date or time period as the gold answer, it should be counted as CORRECT. Even if the format differs (e.g., "May 7th" vs "7 May"), consider it CORRECT if it's the same date.

Now it's time for the real question:
Question: %s
Gold answer: %s
Generated answer: %s

First, provide a short (one sentence) explanation of your reasoning, then finish with CORRECT or WRONG. 
Do NOT include both CORRECT and WRONG in your response, or it will break the evaluation script.

Just return the label CORRECT or WRONG in a json format with the key as "label".
`

// judgeSchema is the JSON answer the LoCoMo judge gives: Mem0 asks for
// response_format json_object and reads "label"; a schema is the
// provider contract's way to ask for the same.
var judgeSchema = &memory.Schema{
	Name:        "qa_judge",
	Description: "the judge's label",
	JSON: json.RawMessage(`{"type": "object", "properties": {"label": {"type": "string", "enum": ["CORRECT", "WRONG"]}},
		"required": ["label"], "additionalProperties": false}`),
}

// LongMemEval's grading prompts (get_anscheck_prompt of
// src/evaluation/evaluate_qa.py, xiaowu0162/LongMemEval, MIT), word for
// word. The %s are the question, the answer (or rubric, or explanation)
// and the model's response.
const (
	lmeHead = "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. "
	lmeTail = "\n\nQuestion: %s\n\nCorrect Answer: %s\n\nModel Response: %s\n\nIs the model response correct? Answer yes or no only."

	lmeDefaultPrompt  = lmeHead + lmeTail
	lmeTemporalPrompt = lmeHead + "In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response is still correct. " + lmeTail
	lmeUpdatePrompt   = "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response contains some previous information along with an updated answer, the response should be considered as correct as long as the updated answer is the required answer." + lmeTail
	lmePrefPrompt     = "I will give you a question, a rubric for desired personalized response, and a response from a model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\nQuestion: %s\n\nRubric: %s\n\nModel Response: %s\n\nIs the model response correct? Answer yes or no only."
	lmeAbsPrompt      = "I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the model correctly identifies the question as unanswerable. The model could say that the information is incomplete, or some other information is given but the asked information is not.\n\nQuestion: %s\n\nExplanation: %s\n\nModel Response: %s\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only."
)

// lmeJudgeMaxTokens is LongMemEval's max_tokens for a grading call.
const lmeJudgeMaxTokens = 10

// judgeRequest is the grading call of q's answer under prompt (JudgeLoCoMo
// or JudgeLongMemEval), at temperature 0 as both evaluations ask.
func judgeRequest(prompt string, q *QAQuestion, answer string) *memory.ChatRequest {
	if prompt == JudgeLongMemEval {
		tmpl := lmeDefaultPrompt
		switch {
		case q.Abstention:
			tmpl = lmeAbsPrompt
		case q.Category == "temporal-reasoning":
			tmpl = lmeTemporalPrompt
		case q.Category == "knowledge-update":
			tmpl = lmeUpdatePrompt
		case q.Category == "single-session-preference":
			tmpl = lmePrefPrompt
		}
		return &memory.ChatRequest{
			Stage:     "qa-judge",
			Messages:  []memory.ChatMessage{{Role: memory.RoleUser, Content: fmt.Sprintf(tmpl, q.Question, q.Answer, answer)}},
			MaxTokens: lmeJudgeMaxTokens,
		}
	}
	return &memory.ChatRequest{
		Stage:    "qa-judge",
		Messages: []memory.ChatMessage{{Role: memory.RoleUser, Content: fmt.Sprintf(locomoJudgePrompt, q.Question, q.Answer, answer)}},
		Schema:   judgeSchema,
	}
}

// verdict reads a judge's reply under prompt: VerdictCorrect or
// VerdictWrong, or an error when the reply says neither. LongMemEval's
// script counts any reply without "yes" as wrong; here a reply with
// neither "yes" nor "no" is an error instead, so that a broken judge
// shows.
func verdict(prompt string, resp *memory.ChatResponse) (string, error) {
	if prompt == JudgeLongMemEval {
		s := strings.ToLower(resp.Content)
		switch {
		case strings.Contains(s, "yes"):
			return VerdictCorrect, nil
		case strings.Contains(s, "no"):
			return VerdictWrong, nil
		}
		return "", memory.Errorf(memory.EINVALID, "judge said neither yes nor no: %q", clip(resp.Content, 200))
	}
	raw := resp.JSON
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(resp.Content)
	}
	var out struct {
		Label string `json:"label"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", memory.Errorf(memory.EINVALID, "judge reply is not {\"label\": …}: %q", clip(string(raw), 200))
	}
	switch out.Label {
	case VerdictCorrect, VerdictWrong:
		return out.Label, nil
	}
	return "", memory.Errorf(memory.EINVALID, "judge label %q: want CORRECT or WRONG", clip(out.Label, 100))
}

// clip returns s cut to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

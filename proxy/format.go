package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
)

// format is one wire format of chat requests: where it is served and
// how its requests carry the user's message and the system prompt, and
// its answers the assistant's text.
type format interface {
	// path is appended to the upstream base URL.
	path() string
	// lastUser returns the text of the latest user message ("" if none).
	lastUser(req map[string]json.RawMessage) string
	// inject adds text to the request's system prompt.
	inject(req map[string]json.RawMessage, text string) error
	// answer returns the assistant's text from a whole response body,
	// streamed as server-sent events or not.
	answer(body []byte, sse bool) string
}

var (
	openAI    format = openAIFormat{}
	anthropic format = anthropicFormat{}
)

// openAIFormat is OpenAI's /chat/completions.
type openAIFormat struct{}

func (openAIFormat) path() string { return "/chat/completions" }

func (openAIFormat) lastUser(req map[string]json.RawMessage) string { return lastUser(req) }

// inject appends text to the first system (or developer) message, or
// puts a system message first when there is none.
func (openAIFormat) inject(req map[string]json.RawMessage, text string) error {
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		return err
	}
	done := false
	for _, m := range msgs {
		var role string
		json.Unmarshal(m["role"], &role)
		if role != "system" && role != "developer" {
			continue
		}
		c, err := appendContent(m["content"], text)
		if err != nil {
			return err
		}
		m["content"] = c
		done = true
		break
	}
	if !done {
		c, _ := json.Marshal(text)
		msgs = append([]map[string]json.RawMessage{{"role": json.RawMessage(`"system"`), "content": c}}, msgs...)
	}
	out, err := json.Marshal(msgs)
	if err != nil {
		return err
	}
	req["messages"] = out
	return nil
}

func (openAIFormat) answer(body []byte, sse bool) string {
	if !sse {
		var comp struct {
			Choices []struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if json.Unmarshal(body, &comp) != nil || len(comp.Choices) == 0 {
			return ""
		}
		return contentText(comp.Choices[0].Message.Content)
	}
	var b strings.Builder
	events(body, func(data []byte) {
		var chunk struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal(data, &chunk) == nil {
			for _, c := range chunk.Choices {
				if c.Index == 0 {
					b.WriteString(c.Delta.Content)
				}
			}
		}
	})
	return b.String()
}

// anthropicFormat is Anthropic's /messages.
type anthropicFormat struct{}

func (anthropicFormat) path() string { return "/messages" }

func (anthropicFormat) lastUser(req map[string]json.RawMessage) string { return lastUser(req) }

// inject appends text to the top-level system prompt (a string or a list
// of text blocks), or sets it.
func (anthropicFormat) inject(req map[string]json.RawMessage, text string) error {
	c, err := appendContent(req["system"], text)
	if err != nil {
		return err
	}
	req["system"] = c
	return nil
}

func (anthropicFormat) answer(body []byte, sse bool) string {
	if !sse {
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(body, &msg) != nil {
			return ""
		}
		return contentText(msg.Content)
	}
	var b strings.Builder
	events(body, func(data []byte) {
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
		}
		if json.Unmarshal(data, &ev) == nil && ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			b.WriteString(ev.Delta.Text)
		}
	})
	return b.String()
}

// lastUser is the text of the latest user message of req's messages
// that has text (in Anthropic's format a user turn of tool results alone
// has none); both formats spell messages alike.
func lastUser(req map[string]json.RawMessage) string {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(req["messages"], &msgs) != nil {
		return ""
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			if t := contentText(msgs[i].Content); t != "" {
				return t
			}
		}
	}
	return ""
}

// contentText is the text of a message content: a string, or the text
// parts of a list of parts ({"type":"text","text":…}), joined by blank
// lines.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" && strings.TrimSpace(p.Text) != "" {
			texts = append(texts, strings.TrimSpace(p.Text))
		}
	}
	return strings.Join(texts, "\n\n")
}

// appendContent adds text to a content that is absent, a string, or a
// list of parts (a text part is appended).
func appendContent(raw json.RawMessage, text string) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return json.Marshal(text)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) != "" {
			s += "\n\n"
		}
		return json.Marshal(s + text)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, err
	}
	part, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return json.Marshal(append(parts, part))
}

// events calls fn with the data of each server-sent event in body
// ("data: …" lines; "[DONE]" is skipped).
func events(body []byte, fn func(data []byte)) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), maxCapture)
	for sc.Scan() {
		line := sc.Bytes()
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		fn(data)
	}
}

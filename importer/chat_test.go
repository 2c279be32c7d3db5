package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

// line returns one JSONL message line (with its newline); empty fields
// are left out.
func line(session, speaker, text, when string) string {
	var f []string
	if session != "" {
		f = append(f, fmt.Sprintf("%q: %q", "session", session))
	}
	if when != "" {
		f = append(f, fmt.Sprintf("%q: %q", "time", when))
	}
	if speaker != "" {
		f = append(f, fmt.Sprintf("%q: %q", "speaker", speaker))
	}
	f = append(f, fmt.Sprintf("%q: %q", "text", text))
	return "{" + strings.Join(f, ", ") + "}\n"
}

// messages returns n lines without a session, texts "message 1" … "message n".
func messages(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(line("", "Maya", fmt.Sprintf("message %d", i), ""))
	}
	return b.String()
}

func readChat(t *testing.T, in string) ([]memory.RetainRequest, []Problem) {
	t.Helper()
	reqs, problems, err := ChatJSONL(strings.NewReader(in), "chat.jsonl", "bank1")
	if err != nil {
		t.Fatalf("ChatJSONL: %v", err)
	}
	return reqs, problems
}

// texts returns the message texts of each request.
func texts(reqs []memory.RetainRequest) [][]string {
	out := make([][]string, len(reqs))
	for i, r := range reqs {
		for _, m := range r.Messages {
			out[i] = append(out[i], m.Text)
		}
	}
	return out
}

func itemIDs(reqs []memory.RetainRequest) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.ItemID
	}
	return out
}

func TestChatJSONL_Batching(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantSizes []int
		wantItems []string
	}{
		{"One", messages(1), []int{1}, []string{"chat.jsonl#1"}},
		{"UnderBatch", messages(DefaultChatBatch - 1), []int{DefaultChatBatch - 1}, []string{"chat.jsonl#1"}},
		{"ExactBatch", messages(DefaultChatBatch), []int{DefaultChatBatch}, []string{"chat.jsonl#1"}},
		{"BatchPlusOne", messages(DefaultChatBatch + 1), []int{DefaultChatBatch, 1},
			[]string{"chat.jsonl#1", fmt.Sprintf("chat.jsonl#%d", DefaultChatBatch+1)}},
		{"TwoBatchesAndSome", messages(2*DefaultChatBatch + 3), []int{DefaultChatBatch, DefaultChatBatch, 3},
			[]string{"chat.jsonl#1", fmt.Sprintf("chat.jsonl#%d", DefaultChatBatch+1), fmt.Sprintf("chat.jsonl#%d", 2*DefaultChatBatch+1)}},
		// Blank lines count for line numbers but are not messages.
		{"BlankLines", "\n  \n" + line("", "Maya", "a", "") + "\n\t\n" + line("", "Tom", "b", "") + "\n",
			[]int{2}, []string{"chat.jsonl#3"}},
		{"CRLF", strings.ReplaceAll(messages(3), "\n", "\r\n"), []int{3}, []string{"chat.jsonl#1"}},
		{"NoFinalNewline", strings.TrimSuffix(messages(2), "\n"), []int{2}, []string{"chat.jsonl#1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, problems := readChat(t, tt.in)
			if len(problems) != 0 {
				t.Fatalf("problems = %v, want none", problems)
			}
			var sizes []int
			for _, r := range reqs {
				sizes = append(sizes, len(r.Messages))
			}
			if got, want := sizes, tt.wantSizes; !reflect.DeepEqual(got, want) {
				t.Errorf("batch sizes = %v, want %v", got, want)
			}
			if got, want := itemIDs(reqs), tt.wantItems; !reflect.DeepEqual(got, want) {
				t.Errorf("item ids = %v, want %v", got, want)
			}
			for _, r := range reqs {
				if r.BankID != "bank1" || r.Source != memory.SourceChat || r.Text != "" {
					t.Errorf("request bank %q source %q text %q, want bank1, %q and no text", r.BankID, r.Source, r.Text, memory.SourceChat)
				}
			}
		})
	}
}

func TestChatJSONL_Order(t *testing.T) {
	n := DefaultChatBatch + 7
	reqs, _ := readChat(t, messages(n))
	var got []string
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m.Speaker != "Maya" {
				t.Errorf("speaker = %q, want Maya", m.Speaker)
			}
			got = append(got, m.Text)
		}
	}
	if len(got) != n {
		t.Fatalf("got %d messages, want %d", len(got), n)
	}
	for i, text := range got {
		if want := fmt.Sprintf("message %d", i+1); text != want {
			t.Fatalf("message %d = %q, want %q", i, text, want)
		}
	}
}

func TestChatJSONL_Sessions(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantItems []string
		wantTexts [][]string
	}{
		{"Two",
			line("s1", "Maya", "a", "") + line("s1", "Tom", "b", "") + line("s2", "Maya", "c", ""),
			[]string{"chat.jsonl#s1", "chat.jsonl#s2"},
			[][]string{{"a", "b"}, {"c"}}},
		{"SessionThenNone",
			line("s1", "Maya", "a", "") + line("", "Tom", "b", "") + line("", "Tom", "c", ""),
			[]string{"chat.jsonl#s1", "chat.jsonl#2"},
			[][]string{{"a"}, {"b", "c"}}},
		{"NoneThenSession",
			line("", "Maya", "a", "") + line("s9", "Tom", "b", ""),
			[]string{"chat.jsonl#1", "chat.jsonl#s9"},
			[][]string{{"a"}, {"b"}}},
		// A session is one document however long it is.
		{"LongSession",
			strings.Repeat(line("s1", "Maya", "x", ""), DefaultChatBatch+5),
			[]string{"chat.jsonl#s1"},
			[][]string{slices.Repeat([]string{"x"}, DefaultChatBatch+5)}},
		// A session that comes back after another one must not reuse the
		// item id of its first run: the second document would replace the
		// first on import and its messages would be lost.
		// A session named like a line number does not take that batch's id.
		{"SessionNamedLikeLine",
			line("", "Maya", "a", "") + line("1", "Tom", "b", "") + line("", "Maya", "c", ""),
			[]string{"chat.jsonl#1", "chat.jsonl#1@2", "chat.jsonl#3"},
			[][]string{{"a"}, {"b"}, {"c"}}},
		{"Interleaved",
			line("s1", "Maya", "a", "") + line("s2", "Tom", "b", "") + line("s1", "Maya", "c", ""),
			[]string{"chat.jsonl#s1", "chat.jsonl#s2", "chat.jsonl#s1@3"},
			[][]string{{"a"}, {"b"}, {"c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, problems := readChat(t, tt.in)
			if len(problems) != 0 {
				t.Fatalf("problems = %v, want none", problems)
			}
			if got, want := texts(reqs), tt.wantTexts; !reflect.DeepEqual(got, want) {
				t.Errorf("texts = %q, want %q", got, want)
			}
			if tt.wantItems != nil {
				if got, want := itemIDs(reqs), tt.wantItems; !reflect.DeepEqual(got, want) {
					t.Errorf("item ids = %q, want %q", got, want)
				}
			}
			seen := map[string]bool{}
			for _, id := range itemIDs(reqs) {
				if seen[id] {
					t.Errorf("item id %q is used by two documents: %q", id, itemIDs(reqs))
				}
				seen[id] = true
			}
		})
	}
}

// Item ids (and everything else) depend only on the input, so importing
// the same file twice retains nothing the second time.
func TestChatJSONL_Stable(t *testing.T) {
	in := messages(DefaultChatBatch+2) + "not json\n" +
		line("s1", "Maya", "a", "2024-03-04T18:02:00Z") + line("s2", "Tom", "b", "2024-03-05") + line("s1", "Maya", "c", "")
	r1, p1 := readChat(t, in)
	r2, p2 := readChat(t, in)
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("two reads differ:\n%+v\n%+v", r1, r2)
	}
	if !reflect.DeepEqual(p1, p2) {
		t.Errorf("two reads report different problems: %v, %v", p1, p2)
	}
	if len(r1) == 0 {
		t.Fatal("no requests")
	}
	// The name is part of the item id: two files do not collide.
	r3, _, err := ChatJSONL(strings.NewReader(in), "other.jsonl", "bank1")
	if err != nil {
		t.Fatal(err)
	}
	for i := range r1 {
		if r1[i].ItemID == r3[i].ItemID {
			t.Errorf("item %d: same id %q for two file names", i, r1[i].ItemID)
		}
	}
}

func TestChatJSONL_Times(t *testing.T) {
	tests := []struct {
		name string
		time string
		want time.Time
	}{
		{"RFC3339", "2024-03-04T18:02:00Z", time.Date(2024, 3, 4, 18, 2, 0, 0, time.UTC)},
		{"RFC3339Offset", "2024-03-04T18:02:00+02:00", time.Date(2024, 3, 4, 16, 2, 0, 0, time.UTC)},
		{"RFC3339Nano", "2024-03-04T18:02:00.123456789Z", time.Date(2024, 3, 4, 18, 2, 0, 123456789, time.UTC)},
		{"NoZone", "2024-03-04T18:02:05", time.Date(2024, 3, 4, 18, 2, 5, 0, time.UTC)},
		{"SpaceSeconds", "2024-03-04 18:02:05", time.Date(2024, 3, 4, 18, 2, 5, 0, time.UTC)},
		{"Minutes", "2024-03-04T18:02", time.Date(2024, 3, 4, 18, 2, 0, 0, time.UTC)},
		{"SpaceMinutes", "2024-03-04 18:02", time.Date(2024, 3, 4, 18, 2, 0, 0, time.UTC)},
		{"DateOnly", "2024-03-04", time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)},
		{"Padded", "  2024-03-04  ", time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)},
		{"LoCoMo", "1:56 pm on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)},
		{"LoCoMoMorning", "10:37 am on 27 June, 2023", time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := line("", "Maya", "first, no time", "") + line("", "Maya", "hello", tt.time) + line("", "Tom", "later", "2030-01-01")
			reqs, problems := readChat(t, in)
			if len(problems) != 0 {
				t.Fatalf("problems = %v, want none", problems)
			}
			if len(reqs) != 1 || len(reqs[0].Messages) != 3 {
				t.Fatalf("got %d requests (%v), want one with 3 messages", len(reqs), texts(reqs))
			}
			msgs := reqs[0].Messages
			if !msgs[0].Time.IsZero() {
				t.Errorf("message without time: Time = %v, want zero", msgs[0].Time)
			}
			if got := msgs[1].Time; !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("Time = %v, want %v in UTC", got, tt.want)
			}
			// The document's time is its first timed message.
			if got := reqs[0].At; !got.Equal(tt.want) {
				t.Errorf("request At = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestChatJSONL_Problems(t *testing.T) {
	tests := []struct {
		name    string
		bad     string // the bad line, without newline
		wantErr string
	}{
		{"MalformedJSON", `{"speaker": "Maya", "text": "unterminated`, "not a JSON message"},
		{"NotJSON", `hello there`, "not a JSON message"},
		{"Array", `["Maya", "hi"]`, "not a JSON message"},
		{"Number", `42`, "not a JSON message"},
		{"WrongType", `{"speaker": "Maya", "text": 42}`, "not a JSON message"},
		{"Null", `null`, `"text" is missing or empty`},
		{"MissingText", `{"speaker": "Maya"}`, `"text" is missing or empty`},
		{"EmptyText", `{"speaker": "Maya", "text": ""}`, `"text" is missing or empty`},
		{"WhitespaceText", `{"speaker": "Maya", "text": " \t\n\u00a0 "}`, `"text" is missing or empty`},
		{"InvalidUTF8", "{\"speaker\": \"Maya\", \"text\": \"caf\xe9 au lait\"}", "not valid UTF-8"},
		{"InvalidUTF8Speaker", "{\"speaker\": \"M\xffya\", \"text\": \"hello\"}", "not valid UTF-8"},
		{"BadTime", `{"speaker": "Maya", "text": "hello", "time": "last Tuesday"}`, "cannot read time"},
		{"BadDate", `{"speaker": "Maya", "text": "hello", "time": "2024-13-45"}`, "cannot read time"},
		{"TwoValues", `{"speaker": "Maya", "text": "a"} {"speaker": "Tom", "text": "b"}`, "more than one JSON value"},
		{"TrailingGarbage", `{"speaker": "Maya", "text": "a"} x`, "more than one JSON value"},
		{"TrailingBrace", `{"speaker": "Maya", "text": "a"}}`, "after the JSON message"},
		{"TrailingBracket", `{"speaker": "Maya", "text": "a"} ]`, "after the JSON message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Bad line on line 3, between good ones, with a blank line 2.
			in := line("", "Maya", "one", "") + "\n" + tt.bad + "\n" + line("", "Tom", "four", "") + line("", "Maya", "five", "")
			reqs, problems := readChat(t, in)
			if len(problems) != 1 {
				t.Fatalf("problems = %v, want exactly one", problems)
			}
			if got, want := problems[0].Line, 3; got != want {
				t.Errorf("problem line = %d, want %d", got, want)
			}
			if !strings.Contains(problems[0].Err, tt.wantErr) {
				t.Errorf("problem = %q, want it to mention %q", problems[0].Err, tt.wantErr)
			}
			// The message is for people: no error-code prefix.
			if strings.HasPrefix(problems[0].Err, memory.EINVALID+":") {
				t.Errorf("problem = %q: starts with the error code", problems[0].Err)
			}
			if got, want := texts(reqs), [][]string{{"one", "four", "five"}}; !reflect.DeepEqual(got, want) {
				t.Errorf("texts = %q, want %q", got, want)
			}
		})
	}
}

func TestChatJSONL_ManyProblems(t *testing.T) {
	lines := []string{
		line("", "Maya", "ok 1", ""),     // 1
		`{bad json`,                      // 2
		line("", "Maya", "ok 3", ""),     // 3
		`{"speaker": "Tom"}`,             // 4
		"{\"text\": \"\xc3\x28\"}",       // 5
		line("", "Tom", "ok 6", "never"), // 6
		line("", "Tom", "ok 7", ""),      // 7
	}
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\n")
	}
	reqs, problems := readChat(t, strings.Join(lines, "\n"))
	var got []int
	for _, p := range problems {
		got = append(got, p.Line)
	}
	if want := []int{2, 4, 5, 6}; !reflect.DeepEqual(got, want) {
		t.Errorf("problem lines = %v, want %v (%v)", got, want, problems)
	}
	if got, want := texts(reqs), [][]string{{"ok 1", "ok 3", "ok 7"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("texts = %q, want %q", got, want)
	}
}

func TestChatJSONL_Fields(t *testing.T) {
	in := `{"id": "D1:3", "session": "s1", "speaker": "Maya", "text": "  Hi Tom!  ", "time": "2024-03-04T18:02:00Z", "extra": [1, 2]}` + "\n"
	reqs, problems := readChat(t, in)
	if len(problems) != 0 || len(reqs) != 1 {
		t.Fatalf("got %d requests, problems %v; want one request", len(reqs), problems)
	}
	want := memory.Message{ID: "D1:3", Speaker: "Maya", Text: "  Hi Tom!  ", Time: time.Date(2024, 3, 4, 18, 2, 0, 0, time.UTC)}
	if got := reqs[0].Messages[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("message = %+v, want %+v", got, want)
	}
}

func TestChatJSONL_Empty(t *testing.T) {
	for name, in := range map[string]string{"Empty": "", "Blank": "\n\n   \n\t\r\n"} {
		t.Run(name, func(t *testing.T) {
			reqs, problems := readChat(t, in)
			if len(reqs) != 0 || len(problems) != 0 {
				t.Errorf("got %d requests and problems %v, want none", len(reqs), problems)
			}
		})
	}
	t.Run("OnlyProblems", func(t *testing.T) {
		reqs, problems := readChat(t, "{}\n[]\n")
		if len(reqs) != 0 || len(problems) != 2 {
			t.Errorf("got %d requests and problems %v, want none and two", len(reqs), problems)
		}
	})
}

// A line longer than the limit is skipped as a problem, with its number;
// the lines around it are imported.
func TestChatJSONL_LineTooLong(t *testing.T) {
	good := messages(3)
	long := `{"text": "` + strings.Repeat("a", maxLine) + `"}` + "\n"
	in := good + long + line("", "Tom", "after", "")
	reqs, problems, err := ChatJSONL(strings.NewReader(in), "chat.jsonl", "bank1")
	if err != nil {
		t.Fatalf("ChatJSONL: %v", err)
	}
	if len(problems) != 1 || problems[0].Line != 4 || !strings.Contains(problems[0].Err, "longer than") {
		t.Errorf("problems = %+v, want line 4 longer than the limit", problems)
	}
	if got, want := texts(reqs), [][]string{{"message 1", "message 2", "message 3", "after"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("texts = %q, want %q", got, want)
	}
}

// A byte order mark before the first line is no part of it.
func TestChatJSONL_BOM(t *testing.T) {
	reqs, problems := readChat(t, "\xef\xbb\xbf"+messages(2))
	if len(problems) != 0 {
		t.Errorf("problems = %+v, want none", problems)
	}
	if got, want := texts(reqs), [][]string{{"message 1", "message 2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("texts = %q, want %q", got, want)
	}
}

// A line as long as the limit is still read.
func TestChatJSONL_LineAtLimit(t *testing.T) {
	prefix, suffix := `{"text": "`, `"}`
	text := strings.Repeat("a", maxLine-len(prefix)-len(suffix))
	in := prefix + text + suffix + "\n" + line("", "Tom", "after", "")
	reqs, problems := readChat(t, in)
	if len(problems) != 0 || len(reqs) != 1 || len(reqs[0].Messages) != 2 {
		t.Fatalf("got %d requests, problems %v; want one request of 2 messages", len(reqs), problems)
	}
	if got := len(reqs[0].Messages[0].Text); got != len(text) {
		t.Errorf("text is %d bytes, want %d", got, len(text))
	}
}

type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestChatJSONL_ReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	reqs, _, err := ChatJSONL(&failingReader{r: strings.NewReader(messages(2)), err: boom}, "chat.jsonl", "bank1")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
	if got, want := texts(reqs), [][]string{{"message 1", "message 2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("texts = %q, want %q (what was read before the error)", got, want)
	}
}

func FuzzChatJSONL(f *testing.F) {
	f.Add([]byte(line("s1", "Maya", "Hi Tom!", "2024-03-04T18:02:00Z") + line("s2", "Tom", "Hello", "")))
	f.Add([]byte(messages(3)))
	f.Add([]byte("{\"text\": \"\xff\"}\n{\"text\": \" \"}\n{}\n"))
	f.Add([]byte(`{"text": "a"} {"text": "b"}` + "\n" + `{"text": "\u0000\ud800"}`))
	f.Add([]byte(`{"text": "a", "time": "1:56 pm on 8 May, 2023", "session": "x"}` + "\r\n\n" + `{"text": "b", "session": "y"}` + "\n" + `{"text": "c", "session": "x"}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, problems, err := ChatJSONL(bytes.NewReader(data), "f.jsonl", "b")
		if err != nil {
			t.Fatalf("error on in-memory input of %d bytes: %v", len(data), err)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		last := 0
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines || p.Line <= last {
				t.Errorf("problem line %d: out of range 1-%d or not increasing", p.Line, lines)
			}
			last = p.Line
			if p.Err == "" {
				t.Errorf("problem on line %d has no message", p.Line)
			}
		}
		items := map[string]bool{}
		for _, r := range reqs {
			if r.BankID != "b" || r.Source != memory.SourceChat || r.ItemID == "" || r.Text != "" {
				t.Errorf("request bank %q source %q item %q text %q", r.BankID, r.Source, r.ItemID, r.Text)
			}
			if items[r.ItemID] {
				t.Errorf("item id %q used twice", r.ItemID)
			}
			items[r.ItemID] = true
			if len(r.Messages) == 0 {
				t.Errorf("request %q has no messages", r.ItemID)
			}
			for _, m := range r.Messages {
				if strings.TrimSpace(m.Text) == "" || !utf8.ValidString(m.Text) {
					t.Errorf("message text %q is empty or not valid UTF-8", m.Text)
				}
				if !utf8.ValidString(m.Speaker) || !utf8.ValidString(m.ID) {
					t.Errorf("message speaker %q or id %q is not valid UTF-8", m.Speaker, m.ID)
				}
				if !m.Time.IsZero() && m.Time.Location() != time.UTC {
					t.Errorf("message time %v is not UTC", m.Time)
				}
			}
		}
	})
}

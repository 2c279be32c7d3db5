package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

const tinyLoCoMo = "testdata/locomo-tiny.json"

// sharedDir is the project's shared folder (datasets, protocol), outside
// the repository; tests that need it skip without it.
var sharedDir = filepath.Join("..", "..", "shared")

// sharedFile returns the path of a file under shared/, or skips the test
// when it is absent.
func sharedFile(t *testing.T, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{sharedDir}, elem...)...)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s absent", p)
	} else if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseLoCoMoTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"1:56 pm on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)},
		{"10:04 am on 19 December, 2023", time.Date(2023, 12, 19, 10, 4, 0, 0, time.UTC)},
		{"12:30 am on 3 July, 2023", time.Date(2023, 7, 3, 0, 30, 0, 0, time.UTC)},
		{"12:05 pm on 3 July, 2023", time.Date(2023, 7, 3, 12, 5, 0, 0, time.UTC)},
		{"9:05 AM on 01 JUNE, 2023", time.Date(2023, 6, 1, 9, 5, 0, 0, time.UTC)},
		{"07:5 Pm  on 1 june,  2022", time.Date(2022, 6, 1, 19, 5, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLoCoMoTime(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []string{
		"", "13:00 pm on 8 May, 2023", "0:10 am on 8 May, 2023", "1:60 pm on 8 May, 2023",
		"1:56 pm on 31 April, 2023", "1:56 pm on 8 Mai, 2023", "1:56 on 8 May, 2023",
		"1:56 pm on 8 May 2023", " 1:56 pm on 8 May, 2023", "1:56 pm on 8 May, 2023 ", "2023-05-08T13:56:00",
	} {
		t.Run("Err/"+bad, func(t *testing.T) {
			if got, err := ParseLoCoMoTime(bad); err == nil {
				t.Errorf("got %v, want an error", got)
			}
		})
	}
}

func TestNormalizeEvidence(t *testing.T) {
	valid := map[string]bool{"D1:3": true, "D30:5": true, "D11:26": true, "D2:1": true}
	tests := []struct {
		name          string
		in            []string
		gold, dropped []string
	}{
		{"Plain", []string{"D1:3"}, []string{"D1:3"}, nil},
		{"LeadingZeros", []string{"D30:05"}, []string{"D30:5"}, nil},
		{"ExtraColon", []string{"D:11:26"}, []string{"D11:26"}, nil},
		{"Separators", []string{"D1:3; D2:1,D30:5\tD11:26"}, []string{"D1:3", "D2:1", "D30:5", "D11:26"}, nil},
		{"Repeats", []string{"D2:1", "D02:1", "D2:1;D1:3"}, []string{"D2:1", "D1:3"}, nil},
		{"Unknown", []string{"D10:19", "D1:3"}, []string{"D1:3"}, []string{"D10:19"}},
		{"Malformed", []string{"D", "1:3", "d1:3", "D1:3a", "", " ; "}, nil, []string{"D", "1:3", "d1:3", "D1:3a"}},
		{"PythonWhitespace", []string{"D1:3\u00a0D2:1\x1fD30:5"}, []string{"D1:3", "D2:1", "D30:5"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gold, dropped := NormalizeEvidence(tt.in, valid)
			if !reflect.DeepEqual(gold, tt.gold) {
				t.Errorf("gold: got %q, want %q", gold, tt.gold)
			}
			if !reflect.DeepEqual(dropped, tt.dropped) {
				t.Errorf("dropped: got %q, want %q", dropped, tt.dropped)
			}
		})
	}
}

func TestLoCoMoCategory_String(t *testing.T) {
	tests := []struct {
		c    LoCoMoCategory
		want string
	}{
		{CategoryMultiHop, "multi-hop"},
		{CategoryTemporal, "temporal"},
		{CategoryOpenDomain, "open-domain"},
		{CategorySingleHop, "single-hop"},
		{CategoryAdversarial, "adversarial"},
		{7, "7"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("LoCoMoCategory(%d).String() = %q, want %q", int(tt.c), got, tt.want)
		}
	}
}

func TestLoadLoCoMo_Tiny(t *testing.T) {
	d, err := LoadLoCoMo(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(d.Conversations), 2; got != want {
		t.Fatalf("conversations: got %d, want %d", got, want)
	}
	c := d.Conversations[0]

	t.Run("Sessions", func(t *testing.T) {
		// Sorted by integer n; the empty session_3, the list-less
		// session_4 and the non-list session_5 are no sessions.
		var got []int
		for _, s := range c.Sessions {
			got = append(got, s.N)
		}
		if want := []int{1, 2, 10}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
		if got, want := c.Sessions[1].Time, time.Date(2023, 6, 1, 9, 5, 0, 0, time.UTC); !got.Equal(want) {
			t.Errorf("session 2 time: got %v, want %v", got, want)
		}
		if got, want := c.Sessions[1].DateTime, "9:05 AM on 1 June, 2023"; got != want {
			t.Errorf("session 2 date_time: got %q, want %q", got, want)
		}
	})

	t.Run("Now", func(t *testing.T) {
		// The latest session with turns, not the later session_4_date_time.
		if got, want := c.Now, time.Date(2023, 7, 3, 0, 30, 0, 0, time.UTC); !got.Equal(want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})

	t.Run("Memories", func(t *testing.T) {
		var ids []string
		for _, m := range c.Memories() {
			ids = append(ids, m.ID)
		}
		want := []string{"tiny-1/D1:1", "tiny-1/D1:2", "tiny-1/D1:3", "tiny-1/D2:1", "tiny-1/D2:2", "tiny-1/D10:1", "tiny-1/D10:2"}
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("got %q, want %q", ids, want)
		}
		got := c.Memories()[2]
		wantTurn := LoCoMoTurn{ID: "tiny-1/D1:3", DiaID: "D1:3", Session: 1, Turn: 3, Speaker: "Ana", Text: "Here he is on the sofa.", Caption: "a dog lying on a couch"}
		if got != wantTurn {
			t.Errorf("turn: got %+v, want %+v", got, wantTurn)
		}
		if got, want := d.NumMemories(), 9; got != want {
			t.Errorf("NumMemories: got %d, want %d", got, want)
		}
	})

	t.Run("Queries", func(t *testing.T) {
		tests := []struct {
			id        string
			cat       LoCoMoCategory
			gold      []string
			dropped   []string
			evaluated bool
		}{
			{"tiny-1/q0", CategorySingleHop, []string{"tiny-1/D1:1"}, nil, true},
			{"tiny-1/q1", CategoryMultiHop, []string{"tiny-1/D2:1", "tiny-1/D10:2"}, nil, true},
			{"tiny-1/q2", CategoryTemporal, []string{"tiny-1/D2:2"}, nil, true},
			{"tiny-1/q3", CategoryOpenDomain, nil, nil, false},                       // no evidence
			{"tiny-1/q4", CategoryAdversarial, []string{"tiny-1/D10:1"}, nil, false}, // adversarial
			{"tiny-1/q5", CategorySingleHop, []string{"tiny-1/D10:1"}, []string{"D9:9", "D"}, true},
			{"tiny-1/q6", CategoryTemporal, []string{"tiny-1/D1:1", "tiny-1/D1:3"}, nil, true},
		}
		if len(c.Queries) != len(tests) {
			t.Fatalf("got %d queries, want %d", len(c.Queries), len(tests))
		}
		for i, tt := range tests {
			q := c.Queries[i]
			if q.ID != tt.id || q.Index != i || q.ConversationID != "tiny-1" || q.Category != tt.cat || q.Evaluated != tt.evaluated ||
				!reflect.DeepEqual(q.Gold, tt.gold) || !reflect.DeepEqual(q.Dropped, tt.dropped) {
				t.Errorf("query %d: got %+v, want %+v", i, q, tt)
			}
		}
		if got, want := len(d.EvaluatedQueries()), 7; got != want {
			t.Errorf("EvaluatedQueries: got %d, want %d", got, want)
		}
	})
}

func TestReadLoCoMo_Err(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"NotJSON", `{`},
		{"NotList", `{"sample_id": "a"}`},
		{"Null", `null`},
		{"Empty", ``},
		{"CutShort", `[{"sample_id": "a", "conversation": {}}`},
		{"BadElement", `[{"sample_id": "a", "conversation": {}}, 7]`},
		{"Trailing", `[{"sample_id": "a", "conversation": {}}] [`},
		{"NoSampleID", `[{"conversation": {}, "qa": []}]`},
		{"RepeatedSampleID", `[{"sample_id": "a", "conversation": {}}, {"sample_id": "a", "conversation": {}}]`},
		{"NoDateTime", `[{"sample_id": "a", "conversation": {"session_1": [{"speaker": "x", "dia_id": "D1:1", "text": "hi"}]}}]`},
		{"BadDateTime", `[{"sample_id": "a", "conversation": {"session_1_date_time": "yesterday", "session_1": [{"speaker": "x", "dia_id": "D1:1", "text": "hi"}]}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadLoCoMo(strings.NewReader(tt.in)); err == nil {
				t.Error("got nil, want an error")
			}
		})
	}
}

// TestLoadLoCoMo_Dev checks the loader against the reference export of the
// dev split: every query's id, question, category, gold set, dropped
// evidence and evaluated flag.
func TestLoadLoCoMo_Dev(t *testing.T) {
	dataPath := sharedFile(t, "data", "locomo-dev.json")
	queriesPath := sharedFile(t, "bench", "locomo-dev-queries.jsonl")
	d, err := LoadLoCoMo(dataPath)
	if err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(queriesPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type refQuery struct {
		QueryID  string   `json:"query_id"`
		Question string   `json:"question"`
		Category int      `json:"category"`
		CatName  string   `json:"category_name"`
		Gold     []string `json:"gold"`
		Dropped  []string `json:"dropped_evidence"`
		Eval     bool     `json:"evaluated"`
	}
	var want []refQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q refQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		want = append(want, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	var got []LoCoMoQuery
	for _, c := range d.Conversations {
		got = append(got, c.Queries...)
	}
	if len(got) != len(want) {
		t.Fatalf("queries: got %d, want %d", len(got), len(want))
	}
	evaluated := 0
	for i, w := range want {
		g := got[i]
		if g.ID != w.QueryID || g.Question != w.Question || int(g.Category) != w.Category || g.Category.String() != w.CatName ||
			g.Evaluated != w.Eval || !equalStrings(g.Gold, w.Gold) || !equalStrings(g.Dropped, w.Dropped) {
			t.Errorf("query %d:\n got %+v\nwant %+v", i, g, w)
		}
		if g.Evaluated {
			evaluated++
		}
	}
	if n := len(d.EvaluatedQueries()); n != evaluated {
		t.Errorf("EvaluatedQueries: got %d, want %d", n, evaluated)
	}
	t.Logf("%d queries, %d evaluated", len(got), evaluated)

	// Memories: one per turn of every non-empty session_<n> list, counted
	// here straight from the raw JSON.
	raw, err := os.ReadFile(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	var samples []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		t.Fatal(err)
	}
	sessionRE := regexp.MustCompile(`^session_[0-9]+$`)
	turns := 0
	for i, s := range samples {
		c := d.Conversations[i]
		sessions := 0
		for k, v := range s.Conversation {
			var list []json.RawMessage
			if !sessionRE.MatchString(k) || json.Unmarshal(v, &list) != nil || len(list) == 0 {
				continue
			}
			sessions++
			turns += len(list)
		}
		if c.ID != s.SampleID || len(c.Sessions) != sessions {
			t.Errorf("conversation %d: got %s with %d sessions, want %s with %d", i, c.ID, len(c.Sessions), s.SampleID, sessions)
		}
		seen := make(map[string]bool)
		for j, s := range c.Sessions {
			if j > 0 && s.N <= c.Sessions[j-1].N {
				t.Errorf("%s: sessions out of order", c.ID)
			}
			if s.Time.After(c.Now) {
				t.Errorf("%s: session %d at %v is after Now %v", c.ID, s.N, s.Time, c.Now)
			}
			for k, m := range s.Turns {
				if m.Turn != k+1 || m.Session != s.N || m.ID != c.ID+"/"+m.DiaID || seen[m.ID] {
					t.Errorf("%s: bad or repeated turn %+v", c.ID, m)
				}
				seen[m.ID] = true
			}
		}
		if !slicesHasTime(c.Sessions, c.Now) {
			t.Errorf("%s: Now %v is no session's time", c.ID, c.Now)
		}
		for _, q := range c.Queries {
			for _, g := range q.Gold {
				if !seen[g] {
					t.Errorf("%s: gold %s is no memory", q.ID, g)
				}
			}
		}
	}
	if got := d.NumMemories(); got != turns {
		t.Errorf("NumMemories: got %d, want %d (turns in the raw file)", got, turns)
	}
	t.Logf("%d conversations, %d memories", len(d.Conversations), d.NumMemories())
}

func slicesHasTime(ss []LoCoMoSession, at time.Time) bool {
	for _, s := range ss {
		if s.Time.Equal(at) {
			return true
		}
	}
	return false
}

// equalStrings compares two lists, nil and empty alike.
func equalStrings(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// FuzzReadLoCoMo checks that ReadLoCoMo never panics and that what it
// reads holds together: sessions in order, turns numbered, Now the latest
// session, gold ids among the memories.
func FuzzReadLoCoMo(f *testing.F) {
	if b, err := os.ReadFile(tinyLoCoMo); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`[{"sample_id": "a", "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "x", "dia_id": "D1:1", "text": "hi"}]}, "qa": [{"question": "q", "category": 4, "evidence": ["D1:1"]}]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadLoCoMo(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, c := range d.Conversations {
			ids := map[string]bool{}
			for i, s := range c.Sessions {
				if i > 0 && s.N <= c.Sessions[i-1].N {
					t.Fatalf("%s: sessions out of order", c.ID)
				}
				if s.Time.After(c.Now) {
					t.Fatalf("%s: session %d after Now", c.ID, s.N)
				}
				for j, m := range s.Turns {
					if m.Turn != j+1 || m.Session != s.N {
						t.Fatalf("%s: turn %+v misnumbered", c.ID, m)
					}
					ids[m.ID] = true
				}
			}
			for _, q := range c.Queries {
				for _, g := range q.Gold {
					if !ids[g] {
						t.Fatalf("%s: gold %s is no memory", q.ID, g)
					}
				}
				if q.Evaluated != (len(q.Gold) > 0 && q.Category.Evaluated()) {
					t.Fatalf("%s: evaluated %v", q.ID, q.Evaluated)
				}
			}
		}
	})
}

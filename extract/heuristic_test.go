package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestHeuristic_Extract_Messages(t *testing.T) {
	later := time.Date(2023, 5, 9, 10, 0, 0, 0, time.UTC)
	in := Input{
		At: ref,
		Messages: []memory.Message{
			{ID: "D1:1", Speaker: "Caroline", Text: "Hey Mel! Good to see you!", Time: ref},
			{ID: "D1:2", Speaker: "Melanie", Text: "  \n "},
			{ID: "D1:3", Speaker: "Caroline", Text: " I went to a LGBTQ support group yesterday. "},
			{ID: "D1:4", Speaker: "Melanie", Text: "I love painting sunsets.", Time: later},
			{ID: "D1:5", Text: "The stock market fell last year."},
		},
	}
	h := NewHeuristic()
	h.Now = func() time.Time { t.Fatal("the clock was read though the input has a time"); return time.Time{} }
	got, err := h.Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	wantChunks := []string{"Hey Mel! Good to see you!", "I went to a LGBTQ support group yesterday.", "I love painting sunsets.", "The stock market fell last year."}
	if len(got.Chunks) != len(wantChunks) {
		t.Fatalf("chunks = %q, want %q", got.Chunks, wantChunks)
	}
	for i := range wantChunks {
		if got.Chunks[i] != wantChunks[i] {
			t.Errorf("chunk %d = %q, want %q", i, got.Chunks[i], wantChunks[i])
		}
	}
	tests := []struct {
		text, speaker, ref    string
		chunk                 int
		kind                  memory.FactKind
		category              memory.Category
		mentioned, start, end time.Time
		entities              []string
	}{
		{"Hey Mel! Good to see you!", "Caroline", "D1:1", 0, memory.KindWorld, memory.CategoryPersonal,
			ref, ref, time.Time{}, []string{"Caroline", "Mel"}},
		{"I went to a LGBTQ support group yesterday.", "Caroline", "D1:3", 1, memory.KindExperience, memory.CategoryEvent,
			ref, day("2023-05-07"), day("2023-05-08"), []string{"Caroline", "LGBTQ"}},
		{"I love painting sunsets.", "Melanie", "D1:4", 2, memory.KindExperience, memory.CategoryPreference,
			later, later, time.Time{}, []string{"Melanie"}},
		{"The stock market fell last year.", "", "D1:5", 3, memory.KindWorld, memory.CategoryEvent,
			ref, day("2022-01-01"), day("2023-01-01"), nil},
	}
	if len(got.Facts) != len(tests) {
		t.Fatalf("got %d facts, want %d", len(got.Facts), len(tests))
	}
	for i, tt := range tests {
		f := got.Facts[i]
		if f.Text != tt.text || f.Speaker != tt.speaker || f.SourceRef != tt.ref || f.Chunk != tt.chunk {
			t.Errorf("fact %d = %q by %q from %q chunk %d, want %q by %q from %q chunk %d",
				i, f.Text, f.Speaker, f.SourceRef, f.Chunk, tt.text, tt.speaker, tt.ref, tt.chunk)
		}
		if f.Kind != tt.kind || f.Category != tt.category {
			t.Errorf("fact %d: kind, category = %s, %s; want %s, %s", i, f.Kind, f.Category, tt.kind, tt.category)
		}
		if !f.MentionedAt.Equal(tt.mentioned) || !f.OccurredStart.Equal(tt.start) || !f.OccurredEnd.Equal(tt.end) {
			t.Errorf("fact %d: mentioned %v, occurred [%v, %v); want %v, [%v, %v)",
				i, f.MentionedAt, f.OccurredStart, f.OccurredEnd, tt.mentioned, tt.start, tt.end)
		}
		if f.Confidence != VerbatimConfidence || f.Importance != DefaultImportance || f.Sensitivity != memory.SensitivityOpen {
			t.Errorf("fact %d: confidence, importance, sensitivity = %v, %v, %s", i, f.Confidence, f.Importance, f.Sensitivity)
		}
		var names []string
		for _, e := range f.Entities {
			names = append(names, e.Name)
		}
		if strings.Join(names, ",") != strings.Join(tt.entities, ",") {
			t.Errorf("fact %d: entities = %q, want %q", i, names, tt.entities)
		}
		if len(f.Entities) > 0 && f.Speaker != "" {
			if e := f.Entities[0]; e.Type != memory.EntityPerson || e.Confidence != 1 {
				t.Errorf("fact %d: speaker entity = %+v, want a person with confidence 1", i, e)
			}
		}
	}
}

func TestHeuristic_Extract_Text(t *testing.T) {
	in := Input{
		Speaker: "Ann",
		At:      ref,
		Text:    "Mr. Smith went to Washington. He loved it!\n\n:)\n\nLast year we moved to Paris... it was great.",
	}
	got, err := NewHeuristic().Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	wantChunks := []string{"Mr. Smith went to Washington. He loved it!", ":)", "Last year we moved to Paris... it was great."}
	if strings.Join(got.Chunks, "|") != strings.Join(wantChunks, "|") {
		t.Errorf("chunks = %q, want %q", got.Chunks, wantChunks)
	}
	tests := []struct {
		text  string
		chunk int
		start time.Time
	}{
		{"Mr. Smith went to Washington.", 0, ref},
		{"He loved it!", 0, ref},
		{":)", 1, ref},
		{"Last year we moved to Paris... it was great.", 2, day("2022-01-01")},
	}
	if len(got.Facts) != len(tests) {
		t.Fatalf("got %d facts, want %d: %+v", len(got.Facts), len(tests), got.Facts)
	}
	for i, tt := range tests {
		f := got.Facts[i]
		if f.Text != tt.text || f.Chunk != tt.chunk || !f.OccurredStart.Equal(tt.start) {
			t.Errorf("fact %d = %q chunk %d at %v, want %q chunk %d at %v", i, f.Text, f.Chunk, f.OccurredStart, tt.text, tt.chunk, tt.start)
		}
		if f.Speaker != "Ann" || f.SourceRef != "" || !f.MentionedAt.Equal(ref) {
			t.Errorf("fact %d: speaker %q, source %q, mentioned %v", i, f.Speaker, f.SourceRef, f.MentionedAt)
		}
	}
}

func TestHeuristic_Extract_Clock(t *testing.T) {
	h := NewHeuristic()
	h.Now = func() time.Time { return ref }
	got, err := h.Extract(context.Background(), Input{Text: "I went there yesterday."})
	if err != nil {
		t.Fatal(err)
	}
	if f := got.Facts[0]; !f.MentionedAt.Equal(ref) || !f.OccurredStart.Equal(day("2023-05-07")) {
		t.Errorf("mentioned %v, occurred %v; want %v, 2023-05-07", f.MentionedAt, f.OccurredStart, ref)
	}
}

func TestHeuristic_Extract_Errors(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string // part of the message
	}{
		{"Empty", Input{}, "nothing to remember"},
		{"Blank", Input{Text: " \n\t "}, "nothing to remember"},
		{"NoMessageText", Input{Messages: []memory.Message{{Speaker: "A", Text: " "}, {Speaker: "B"}}}, "nothing to remember"},
		{"Both", Input{Text: "hi", Messages: []memory.Message{{Text: "hi"}}}, "not both"},
		{"InvalidText", Input{Text: "caf\xc3 ok"}, "not valid UTF-8"},
		{"InvalidSpeaker", Input{Text: "ok", Speaker: "\xff"}, "not valid UTF-8"},
		{"InvalidMessage", Input{Messages: []memory.Message{{Text: "ok"}, {Text: "bad \xff"}}}, "message 2"},
		{"InvalidMessageSpeaker", Input{Messages: []memory.Message{{Text: "ok", Speaker: "\xfe"}}}, "speaker"},
		{"InvalidMessageID", Input{Messages: []memory.Message{{Text: "ok", ID: "\xfe"}}}, "id"},
		{"TooLarge", Input{Text: strings.Repeat("a", memory.MaxContentBytes+1)}, "over the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewHeuristic().Extract(context.Background(), tt.in)
			if got := memory.ErrorCode(err); got != memory.EINVALID {
				t.Fatalf("code = %q (%v), want %q", got, err, memory.EINVALID)
			}
			if msg := memory.ErrorMessage(err); !strings.Contains(msg, tt.want) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.want)
			}
		})
	}
	t.Run("ErrCanceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := NewHeuristic().Extract(ctx, Input{Text: "hello there"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"Hey Mel! I went to a LGBTQ support group yesterday.",
		"Mr. Smith met Dr. J. K. Rowling on 12/05/2023.\n\nLast June... in May 2023?",
		"two weeks ago", "\xff\xfe", "...", "A.B.C. D", "’’’", "in 2 days", "May",
	} {
		f.Add(s)
	}
	h := NewHeuristic()
	f.Fuzz(func(t *testing.T, s string) {
		res, err := h.Extract(context.Background(), Input{Text: s, Speaker: "Ann", At: ref})
		if !utf8.ValidString(s) || strings.TrimSpace(s) == "" {
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("Extract(%q) err = %v, want EINVALID", s, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Extract(%q): %v", s, err)
		}
		if len(res.Facts) == 0 {
			t.Fatalf("Extract(%q) gave no facts", s)
		}
		for _, fact := range res.Facts {
			if fact.Text == "" || fact.Chunk < 0 || fact.Chunk >= len(res.Chunks) {
				t.Fatalf("Extract(%q): bad fact %+v", s, fact)
			}
			if !fact.OccurredEnd.IsZero() && !fact.OccurredStart.Before(fact.OccurredEnd) {
				t.Fatalf("Extract(%q): empty period [%v, %v)", s, fact.OccurredStart, fact.OccurredEnd)
			}
		}
	})
}

// benchMessages is a realistic chat session: short turns, a few dates, a
// few names, most turns without a date.
var benchMessages = []memory.Message{
	{ID: "1", Speaker: "Anna", Text: "Hey Tom! Long time no see. How have you been?"},
	{ID: "2", Speaker: "Tom", Text: "Hi Anna! Pretty busy, the kids keep me on my toes. I started a pottery class last week."},
	{ID: "3", Speaker: "Anna", Text: "That's awesome! I've always wanted to try pottery. Is it hard?"},
	{ID: "4", Speaker: "Tom", Text: "It's tricky at first, but super relaxing once you get the hang of it."},
	{ID: "5", Speaker: "Anna", Text: "I ran a half marathon for a children's charity last Saturday and I'm still sore."},
	{ID: "6", Speaker: "Tom", Text: "Wow, congrats! How long did you train for it?"},
	{ID: "7", Speaker: "Anna", Text: "About four months. My friend Julia from Seattle trained with me most mornings."},
	{ID: "8", Speaker: "Tom", Text: "That's dedication. I can barely get up before seven on weekends."},
	{ID: "9", Speaker: "Anna", Text: "Ha, same before I started. What else is new with you?"},
	{ID: "10", Speaker: "Tom", Text: "We adopted a rescue dog in 2022, a beagle named Max. He loves the beach."},
	{ID: "11", Speaker: "Anna", Text: "Aww, I love beagles! Do you take him to the beach often?"},
	{ID: "12", Speaker: "Tom", Text: "Every Sunday if the weather is nice. The kids throw the ball for hours."},
	{ID: "13", Speaker: "Anna", Text: "Sounds like a perfect routine. I'm thinking about getting a cat."},
	{ID: "14", Speaker: "Tom", Text: "You should! Cats are great company and pretty low maintenance."},
	{ID: "15", Speaker: "Anna", Text: "My landlord may not allow pets though, I need to check the lease."},
	{ID: "16", Speaker: "Tom", Text: "Good idea. By the way, are you still working at the NASA visitor center?"},
	{ID: "17", Speaker: "Anna", Text: "Yes, I give tours twice a week. Kids ask the funniest questions about astronauts."},
	{ID: "18", Speaker: "Tom", Text: "I bet! My son wants to be an astronaut since we watched the launch together."},
	{ID: "19", Speaker: "Anna", Text: "Bring him by next month, I'll show him the rockets."},
	{ID: "20", Speaker: "Tom", Text: "He would love that. Thanks Anna, talk soon!"},
}

func BenchmarkHeuristic_Extract(b *testing.B) {
	h := NewHeuristic()
	in := Input{Messages: benchMessages, At: ref}
	ctx := context.Background()
	facts := 0
	for b.Loop() {
		res, err := h.Extract(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		facts += len(res.Facts)
	}
	b.ReportMetric(float64(facts)/b.Elapsed().Seconds(), "facts/s")
}

func BenchmarkHeuristic_Extract_Parallel(b *testing.B) {
	h := NewHeuristic()
	in := Input{Messages: benchMessages, At: ref}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := h.Extract(context.Background(), in); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*len(benchMessages))/b.Elapsed().Seconds(), "facts/s")
}

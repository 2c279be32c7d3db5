package memory_test

import (
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestFormatFact(t *testing.T) {
	day := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		f    memory.Fact
		want string
	}{
		{"Full", memory.Fact{Speaker: "Caroline", Text: "I went to a support group.", OccurredStart: day}, "- [2023-05-08] Caroline: I went to a support group."},
		{"NoSpeaker", memory.Fact{Text: "Alice moved to Lisbon.", OccurredStart: day}, "- [2023-05-08] Alice moved to Lisbon."},
		{"NoTime", memory.Fact{Speaker: "Bob", Text: "Hi."}, "- Bob: Hi."},
		{"Bare", memory.Fact{Text: "Hi."}, "- Hi."},
		{"MentionedAt", memory.Fact{Text: "Hi.", MentionedAt: day.AddDate(0, 0, 1)}, "- [2023-05-09] Hi."},
		{"CreatedAt", memory.Fact{Text: "Hi.", CreatedAt: day.AddDate(-1, 0, 0)}, "- [2022-05-08] Hi."},
		{"OccurredFirst", memory.Fact{Text: "Hi.", OccurredStart: day, MentionedAt: day.AddDate(0, 0, 3)}, "- [2023-05-08] Hi."},
		{"Whitespace", memory.Fact{Text: "  line one\n\tline  two \r\n"}, "- line one line two"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := memory.FormatFact(&tt.f); got != tt.want {
				t.Errorf("FormatFact = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatPrevious(t *testing.T) {
	day := time.Date(2024, 5, 15, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		f    memory.Fact
		want string
	}{
		{"ValidTo", memory.Fact{Text: "Tom loves Nike shoes", ValidTo: day, ExpiredAt: day.AddDate(0, 1, 0)}, "previously: Tom loves Nike shoes (changed 2024-05-15)"},
		{"ExpiredAt", memory.Fact{Text: "Tom loves Nike shoes", ExpiredAt: day.AddDate(0, 1, 0)}, "previously: Tom loves Nike shoes (changed 2024-06-15)"},
		{"Speaker", memory.Fact{Speaker: "Tom", Text: "I love\nNike shoes"}, "previously: Tom: I love Nike shoes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := memory.FormatPrevious(&tt.f); got != tt.want {
				t.Errorf("FormatPrevious = %q, want %q", got, tt.want)
			}
		})
	}
}

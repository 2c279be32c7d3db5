package extract

import (
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestKind(t *testing.T) {
	tests := []struct {
		text string
		want memory.FactKind
	}{
		{"I went to the park", memory.KindExperience},
		{"We moved last year", memory.KindExperience},
		{"my dog is cute", memory.KindExperience},
		{"Im so tired", memory.KindExperience},
		{"She told us everything", memory.KindExperience},
		{"The US is big", memory.KindWorld},
		{"The stock market fell today", memory.KindWorld},
		{"How have you been?", memory.KindWorld},
	}
	for _, tt := range tests {
		if got := kind(tokenize(tt.text)); got != tt.want {
			t.Errorf("kind(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
}

func TestCategory(t *testing.T) {
	tests := []struct {
		text  string
		dated bool
		want  memory.Category
	}{
		{"My email is ann@example.com", false, memory.CategoryContact},
		{"I decided to quit my job", false, memory.CategoryDecision},
		{"I went to the support group yesterday", true, memory.CategoryEvent},
		{"I love painting sunsets", false, memory.CategoryPreference},
		{"My favorite book is Dune", false, memory.CategoryPreference},
		{"I really like jazz", false, memory.CategoryPreference},
		{"It felt like a dream", false, memory.CategoryPersonal},
		{"I fixed a bug in the server", false, memory.CategoryTechnical},
		{"The project deadline is close", false, memory.CategoryProject},
		{"We had a great wedding", false, memory.CategoryEvent},
		{"I have two kids", false, memory.CategoryPersonal},
	}
	for _, tt := range tests {
		if got := category(tokenize(tt.text), tt.dated); got != tt.want {
			t.Errorf("category(%q, %v) = %s, want %s", tt.text, tt.dated, got, tt.want)
		}
	}
}

package consolidate

import "testing"

func TestSameParticulars(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"I love tea!", "i love tea", true},
		{"I love tea", "I really love tea", true},
		{"I'm going home", "i'm going home now", true},
		{"Alex paid $40", "Alex paid $45", false},
		{"Alex paid $40", "Sam paid $40", false},
		{"Alex paid $40", "alex paid $40", true},      // an opening capital may be only a capital
		{"I paid Alex $40", "I paid alex $40", false}, // a name inside a sentence must stay a name
		{"Then Alex paid", "Then Sam paid", false},
		{"Meet at 3:30 on May 4", "Meet at 3:30 on May 5", false},
		{"Meet at 3:30 on May 4", "Meet at 3:30 on June 4", false},
		{"Meet at 3:30 on May 4", "meet at 3:30 on May 4!", true},
		{"I like tea", "I don't like tea", false},
		{"I like tea", "I do not like tea", false},
		{"I never said that", "I never said that.", true},
		{"007 is 7", "7 is 7", true}, // leading zeros are the same number
		{"I ran 5 km", "I ran 5 km and 2 km", false},
	} {
		if got := SameParticulars(c.a, c.b); got != c.want {
			t.Errorf("SameParticulars(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestSameWording(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"I love tea!", "i love tea", true},
		{"Got it, that makes total sense now!", "got it that makes sense", true},
		{"Oh, I really love the tea.", "I love tea", true},
		{"I gave it to him", "I gave it to her", false},
		{"Dog bites man", "Man bites dog", false},
		{"Me too. Talk to you later!", "Thanks! Talk to you later!", false},
		{"Take care!", "You too, take care!", false},
		{"I don't like tea", "I do like tea", false},
	} {
		if got := SameWording(c.a, c.b); got != c.want {
			t.Errorf("SameWording(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

package extract

import (
	"fmt"
	"slices"
	"testing"
)

func TestEntities(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		speaker  string
		speakers []string
		others   []string // other texts of the same input
		want     []string // "type:name:confidence"
	}{
		{"Speaker", "I went there.", "Caroline", []string{"Caroline"}, nil,
			[]string{"person:Caroline:1"}},
		{"GreetingNickname", "Hey Mel! Good to see you!", "Caroline", []string{"Caroline", "Melanie"}, nil,
			[]string{"person:Caroline:1", "person:Mel:0.7"}},
		{"Greeting", "Thanks John, see you.", "", nil, nil,
			[]string{"person:John:0.7"}},
		{"SpeakerName", "Wow, that's cool, Caroline!", "Melanie", []string{"Caroline", "Melanie"}, nil,
			[]string{"person:Melanie:1", "person:Caroline:0.9"}},
		{"UnknownOpenerBeforeName", "Woah Joanna, that's great", "", []string{"Joanna"}, nil,
			[]string{"person:Joanna:0.9"}},
		{"SkipThe", "The Beatles played in Sweden last June.", "", nil, nil,
			[]string{"thing:Beatles:0.7", "place:Sweden:0.7"}},
		{"MonthsWeekdays", "We met Anna on Monday in May and on Fri in June.", "", nil, nil,
			[]string{"thing:Anna:0.7"}},
		{"Possessive", "I borrowed Jon's car and Maria’s bike.", "", []string{"Jon"}, nil,
			[]string{"person:Jon:0.9", "thing:Maria:0.7"}},
		{"Acronyms", "LGBTQ people and NASA folks, LOL OK.", "", nil, nil,
			[]string{"thing:LGBTQ:0.6", "thing:NASA:0.6"}},
		{"Titles", "Dr. Lee works at the Bank of America.", "", nil, nil,
			[]string{"person:Lee:0.8", "thing:Bank of America:0.7"}},
		{"Initials", "I read J. K. Rowling and George R. R. Martin.", "", nil, nil,
			[]string{"thing:J. K. Rowling:0.7", "thing:George R. R. Martin:0.7"}},
		{"Connectors", "Vincent van Gogh painted it. I saw Lord of the Rings.", "", nil, nil,
			[]string{"thing:Vincent van Gogh:0.7", "thing:Lord of the Rings:0.7"}},
		{"Hyphen", "I love Spider-Man.", "", nil, nil,
			[]string{"thing:Spider-Man:0.7"}},
		{"InitialCommonWord", "Painting is my passion. Honestly it helps.", "", nil, nil, nil},
		{"InitialUnknownWord", "Sweden is lovely.", "", nil, nil, nil},
		{"InitialKnownWord", "Sweden is lovely.", "", nil, []string{"I love Sweden."},
			[]string{"thing:Sweden:0.5"}},
		{"DedupKeepsMaxConfidence", "Paris is lovely. I love Paris.", "", nil, nil,
			[]string{"thing:Paris:0.7"}},
		{"Pronouns", "Then I told Her and It's fine.", "", nil, nil, nil},
		{"Contraction", "How's it going? They'll come.", "", nil, nil, nil},
		{"Shouted", "I LOVE THIS SO MUCH NASA", "", nil, nil, nil},
		{"MultiWordOpener", "New York is big.", "", nil, nil,
			[]string{"thing:New York:0.7"}},
		{"PlaceAfterIn", "We live in Fort Wayne now.", "", nil, nil,
			[]string{"place:Fort Wayne:0.7"}},
		{"OneNameThingThenPlace", "Berlin is big. We live in Berlin now.", "", nil, nil,
			[]string{"place:Berlin:0.7"}},
		{"OneNamePlaceThenThing", "We live in Berlin. I love Berlin.", "", nil, nil,
			[]string{"place:Berlin:0.7"}},
		{"OneNamePersonStays", "Hey Jordan! We flew in Jordan.", "", nil, nil,
			[]string{"person:Jordan:0.7"}},
		{"InvalidUTF8", "Bad\xff Anna\xfe went", "", nil, nil,
			[]string{"thing:Anna:0.7"}},
		{"CodeNamesNothing", "I deploy with Gunicorn.\n```Dockerfile\nCOPY Foo Bar\n```\nThen `Some Call` runs.", "", nil, nil,
			[]string{"thing:Gunicorn:0.7"}},
		{"HeadingWordsNeedProse", "### Configure Gunicorn Settings\nI run Gunicorn daily.", "", nil, nil,
			[]string{"thing:Gunicorn:0.7"}},
		{"HeadingAlone", "## Final Thoughts\nThat is all.", "", nil, nil, nil},
		{"HeadingAcronym", "## Set Up SSL\nThat is all.", "", nil, nil,
			[]string{"thing:SSL:0.6"}},
		{"BoldLabel", "1. **Obtain Certificates**: open the Render dashboard.", "", nil, nil,
			[]string{"thing:Render:0.7"}},
		{"Placeholder", "Sign it as [Your Name] for Acme.", "", nil, nil,
			[]string{"thing:Acme:0.7"}},
		{"TableRow", "| Work | Hours |\n| Rest | Days |", "", nil, nil, nil},
		{"ImperativeOpener", "Use Certbot to get it.", "", nil, nil,
			[]string{"thing:Certbot:0.7"}},
		{"ImperativeAfterColon", "Step 2: Ensure Flask runs.", "", nil, nil,
			[]string{"thing:Flask:0.7"}},
		{"CommonWordOpener", "Soon Paris will shine. We leave soon.", "", nil, nil,
			[]string{"thing:Paris:0.7"}},
		{"CommonWordAlone", "Probability matters. The probability is low.", "", nil, []string{"Ask about Probability now."}, nil},
		{"CapitalisedOnlyAfterColon", "Review it. Tip: Review it.", "", nil, nil, nil},
		{"RoleIsNoName", "Use the API.", "user", []string{"user", "assistant"}, nil,
			[]string{"person:user:1", "thing:API:0.6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks := tokenize(tt.text)
			markMarkdown(tt.text, toks)
			texts := [][]token{toks}
			for _, o := range tt.others {
				ot := tokenize(o)
				markMarkdown(o, ot)
				texts = append(texts, ot)
			}
			c := newEntityContext(tt.speakers, texts)
			var got []string
			for _, e := range c.entities(toks, tt.speaker) {
				got = append(got, fmt.Sprintf("%s:%s:%v", e.Type, e.Name, e.Confidence))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("entities(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	toks := tokenize("Hey Mel’s dog! Dr. Lee's \xff café.\nNew")
	var got []string
	for _, tk := range toks {
		got = append(got, fmt.Sprintf("%s/%s/%s/%v", tk.text, tk.lower, tk.key, tk.initial))
	}
	want := []string{
		"Hey/hey/hey/true", "Mel’s/mel's/mels/false", "dog/dog/dog/false",
		"Dr/dr/dr/true", "Lee's/lee's/lees/false", "café/café/café/false", "New/new/new/true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("tokenize = %q, want %q", got, want)
	}
}

func TestMarkMarkdown(t *testing.T) {
	text := "# Head Line\nSay `Code Span` and [Link Text](x) here.\n- **Bold Label**: after **Bold** too.\n```go\nFmt Print\n```\n| Cell |\nTail"
	toks := tokenize(text)
	markMarkdown(text, toks)
	var got []string
	for _, tk := range toks {
		switch {
		case tk.code:
			got = append(got, "c:"+tk.text)
		case tk.label:
			got = append(got, "l:"+tk.text)
		default:
			got = append(got, tk.text)
		}
	}
	want := []string{
		"l:Head", "l:Line", "Say", "c:Code", "c:Span", "and", "l:Link", "l:Text", "x", "here",
		"l:Bold", "l:Label", "after", "Bold", "too",
		"c:go", "c:Fmt", "c:Print", "l:Cell", "Tail",
	}
	if !slices.Equal(got, want) {
		t.Errorf("markMarkdown:\n got %q\nwant %q", got, want)
	}
}

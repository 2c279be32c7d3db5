package extract

import (
	"slices"
	"testing"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Empty", "", nil},
		{"NoTerminator", "no terminator here", []string{"no terminator here"}},
		{"Simple", "Hello world. How are you? I'm fine!", []string{"Hello world.", "How are you?", "I'm fine!"}},
		{"Titles", "Mr. Smith met Dr. Lee and Mrs. Jones.", []string{"Mr. Smith met Dr. Lee and Mrs. Jones."}},
		{"EG", "I like fruit, e.g. apples. They are good.", []string{"I like fruit, e.g. apples.", "They are good."}},
		{"IE", "One thing, i.e. this one.", []string{"One thing, i.e. this one."}},
		{"Decimal", "It costs 3.5 dollars. Cheap!", []string{"It costs 3.5 dollars.", "Cheap!"}},
		{"EllipsisLower", "Wait... what? No way!!", []string{"Wait... what?", "No way!!"}},
		{"EllipsisUpper", "I was tired… Then I slept.", []string{"I was tired…", "Then I slept."}},
		{"Newlines", "Line one\nLine two\r\nLine three", []string{"Line one", "Line two", "Line three"}},
		{"Initials", "J. K. Rowling wrote it. Then she rested.", []string{"J. K. Rowling wrote it.", "Then she rested."}},
		{"MaybeAbbrevLower", "We left at 5 p.m. and ate.", []string{"We left at 5 p.m. and ate."}},
		{"MaybeAbbrevUpper", "We left at 5 p.m. Then we ate.", []string{"We left at 5 p.m.", "Then we ate."}},
		{"Etc", "Apples, pears etc. Then more.", []string{"Apples, pears etc.", "Then more."}},
		{"ClosingQuote", `He said "Hi." Then he left.`, []string{`He said "Hi."`, "Then he left."}},
		{"CurlyQuote", "She said “Bye!” and left.", []string{"She said “Bye!” and left."}},
		{"URL", "See example.com for more. Thanks!", []string{"See example.com for more.", "Thanks!"}},
		{"Emoji", "Love it! 😍 So cool.", []string{"Love it!", "😍 So cool."}},
		{"InvalidUTF8", "Bad \xff byte. Next\xfe one!", []string{"Bad \xff byte.", "Next\xfe one!"}},
		{"CJKStops", "私は京都に住んでいます。毎朝、散歩します！楽しいですか？はい。", []string{"私は京都に住んでいます。", "毎朝、散歩します！", "楽しいですか？", "はい。"}},
		{"CJKCloser", "彼は「行きます。」と言った。次の日。", []string{"彼は「行きます。」", "と言った。", "次の日。"}},
		{"CJKMixed", "我住在北京。I like tea. 你呢？", []string{"我住在北京。", "I like tea.", "你呢？"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sentences(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("sentences(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParagraphs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Empty", "", nil},
		{"Blank", " \n\t\n", nil},
		{"One", "one line\nand another", []string{"one line\nand another"}},
		{"Three", "a\n\nb\n \t\n\n c \n", []string{"a", "b", "c"}},
		{"CRLF", "a\r\n\r\nb", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := paragraphs(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("paragraphs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

package memory_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func TestValidateBankName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"default", true}, {"conv-26", true}, {"a.b:c_d-e", true}, {"A1", true},
		{"", false}, {"-lead", false}, {"has space", false}, {"slash/no", false},
		{string(make([]byte, 129)), false}, {"é", false},
	} {
		err := memory.ValidateBankName(tt.name)
		if got := err == nil; got != tt.ok {
			t.Errorf("ValidateBankName(%q) = %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("ValidateBankName(%q) code %q, want %q", tt.name, memory.ErrorCode(err), memory.EINVALID)
		}
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"Caroline":         "caroline",
		"  New   York  ":   "new york",
		"Mel's":            "mels",
		"Mel’s":            "mels",
		"Dr. Jane-Doe":     "dr jane doe",
		"LGBTQ+":           "lgbtq",
		"!!!":              "",
		"São Paulo":        "são paulo",
		"Northwind\tLabs!": "northwind labs",
	} {
		if got := memory.NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEntityID(t *testing.T) {
	a := memory.EntityID("Caroline")
	if b := memory.EntityID("  caroline! "); a != b {
		t.Errorf("same normalised name, different ids: %s %s", a, b)
	}
	if d := memory.EntityID("Melanie"); a == d {
		t.Errorf("two names share id %s", a)
	}
}

func TestErrorCode(t *testing.T) {
	inner := memory.Errorf(memory.ENOTFOUND, "unknown bank %q", "x")
	wrapped := fmt.Errorf("recall: %w", inner)
	for _, tt := range []struct {
		err       error
		code, msg string
	}{
		{nil, "", ""},
		{inner, memory.ENOTFOUND, `unknown bank "x"`},
		{wrapped, memory.ENOTFOUND, `unknown bank "x"`},
		{errors.New("disk on fire"), memory.EINTERNAL, "internal error"},
	} {
		if got := memory.ErrorCode(tt.err); got != tt.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tt.err, got, tt.code)
		}
		if got := memory.ErrorMessage(tt.err); got != tt.msg {
			t.Errorf("ErrorMessage(%v) = %q, want %q", tt.err, got, tt.msg)
		}
	}
}

func TestFact_EventTime(t *testing.T) {
	occ := time.Date(2023, 5, 6, 0, 0, 0, 0, time.UTC)
	ment := occ.Add(48 * time.Hour)
	created := ment.Add(time.Hour)
	for _, tt := range []struct {
		f    memory.Fact
		want time.Time
	}{
		{memory.Fact{OccurredStart: occ, MentionedAt: ment, CreatedAt: created}, occ},
		{memory.Fact{MentionedAt: ment, CreatedAt: created}, ment},
		{memory.Fact{CreatedAt: created}, created},
		{memory.Fact{}, time.Time{}},
	} {
		if got := tt.f.EventTime(); !got.Equal(tt.want) {
			t.Errorf("EventTime() = %v, want %v", got, tt.want)
		}
	}
}

func TestChunkID(t *testing.T) {
	if got, want := memory.ChunkID("bank", "doc_1", 3), "bank_doc_1_3"; got != want {
		t.Errorf("ChunkID = %q, want %q", got, want)
	}
}

func TestValidateSessionMessage(t *testing.T) {
	for _, tt := range []struct {
		role memory.Role
		ok   bool
	}{
		{memory.RoleUser, true}, {memory.RoleAssistant, true},
		{memory.RoleTool, false}, {"", false}, {"system", false}, {"User", false},
	} {
		m := memory.SessionMessage{Role: tt.role, Message: memory.Message{Text: "hello"}}
		err := memory.ValidateSessionMessage(m)
		if got := err == nil; got != tt.ok {
			t.Errorf("ValidateSessionMessage(role %q) = %v, want ok %v", tt.role, err, tt.ok)
		}
		if err != nil && memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("ValidateSessionMessage(role %q) code %q, want %q", tt.role, memory.ErrorCode(err), memory.EINVALID)
		}
	}
}

func TestMergeEntity(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2024, 3, 4, h, 0, 0, 0, time.UTC) }
	e := memory.Entity{ID: "ent_1", BankID: "b", Name: "Melanie", Type: memory.EntityPerson, Salience: 0.5, Tier: memory.TierSemantic}
	for _, u := range []memory.EntityUpsert{
		{Entity: memory.Entity{Name: "Melanie", Aliases: []string{"Mel", "mel", "MELANIE", "!!"}, FirstSeen: at(5), LastSeen: at(10)}, Mentions: 2, Episodes: 1},
		{Entity: memory.Entity{Name: "Mel", Type: memory.EntityTopic, Aliases: []string{"Mels"}, FirstSeen: at(3), Contradicted: true}, Mentions: 3, Episodes: 1},
		{Entity: memory.Entity{Name: "Melanie", LastSeen: at(12)}, Mentions: 1},
		{Entity: memory.Entity{Name: "Melanie", Aliases: []string{"Mel"}}, Mentions: 1},
	} {
		memory.MergeEntity(&e, u)
	}
	want := memory.Entity{
		ID: "ent_1", BankID: "b", Name: "Melanie", Type: memory.EntityPerson, Salience: 0.5, Tier: memory.TierSemantic,
		Aliases: []string{"Mel", "Mels"}, FirstSeen: at(3), LastSeen: at(12), MentionCount: 7, EpisodeCount: 2, Contradicted: true,
	}
	if fmt.Sprint(e) != fmt.Sprint(want) {
		t.Errorf("MergeEntity:\n got %+v\nwant %+v", e, want)
	}
}

func TestEntityUpsert_Add(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2024, 3, 4, h, 0, 0, 0, time.UTC) }
	aliases := []string{"Mel", "Mels"}
	u := memory.EntityUpsert{Entity: memory.Entity{ID: "ent_1", Name: "Melanie", Aliases: aliases[:1], LastSeen: at(9)}, Mentions: 1, Episodes: 1}
	u.Add(memory.EntityUpsert{Entity: memory.Entity{ID: "ent_1", Name: "Mellie", Aliases: []string{"Mel"}, FirstSeen: at(4), LastSeen: at(8)}, Embedding: []float32{1}, Mentions: 2})
	u.Add(memory.EntityUpsert{Entity: memory.Entity{ID: "ent_1", Name: "Melanie", Contradicted: true}, Embedding: []float32{2}, Mentions: 1, Episodes: 1})
	want := memory.EntityUpsert{
		Entity:    memory.Entity{ID: "ent_1", Name: "Melanie", Aliases: []string{"Mel", "Mellie", "Mel"}, FirstSeen: at(4), LastSeen: at(9), Contradicted: true},
		Embedding: []float32{1}, Mentions: 4, Episodes: 2,
	}
	if fmt.Sprint(u) != fmt.Sprint(want) {
		t.Errorf("Add:\n got %+v\nwant %+v", u, want)
	}
	if aliases[1] != "Mels" {
		t.Errorf("Add wrote into the first upsert's alias array: %q", aliases)
	}
}

func TestFingerprint(t *testing.T) {
	a := memory.Fingerprint("12 Elm Street")
	if !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+16 || strings.Contains(strings.ToLower(a), "elm") {
		t.Fatalf("Fingerprint = %q, want sha256: and 16 hex digits, not the words", a)
	}
	if b := memory.Fingerprint("  12 ELM street! "); b != a {
		t.Errorf("Fingerprint of the same words spelled otherwise = %q, want %q", b, a)
	}
	if c := memory.Fingerprint("13 Elm Street"); c == a {
		t.Errorf("different words share the fingerprint %q", a)
	}
	if got := memory.Fingerprint(" "); got != "" {
		t.Errorf("Fingerprint(blank) = %q, want empty", got)
	}
}

func TestAppendHistory(t *testing.T) {
	var h []memory.ObservationChange
	for i := range memory.MaxObservationHistory + 7 {
		prev := h
		h = memory.AppendHistory(h, memory.ObservationChange{Previous: fmt.Sprint(i)})
		if len(prev) > 0 && &prev[0] == &h[0] {
			t.Fatal("AppendHistory changed its argument's backing array")
		}
	}
	if len(h) != memory.MaxObservationHistory || h[0].Previous != "7" || h[len(h)-1].Previous != fmt.Sprint(memory.MaxObservationHistory+6) {
		t.Errorf("history: %d entries from %q to %q, want the newest %d", len(h), h[0].Previous, h[len(h)-1].Previous, memory.MaxObservationHistory)
	}
}

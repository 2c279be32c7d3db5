package memory_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// code is err's code, or "" for nil.
func code(err error) string {
	if err == nil {
		return ""
	}
	return memory.ErrorCode(err)
}

func TestPrepareFacts(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		facts := []*memory.Fact{
			{ID: "f1"},
			{ID: "f2", Status: memory.StatusArchived, Kind: memory.KindExperience, Sensitivity: memory.SensitivityPrivate},
		}
		next, err := memory.PrepareFacts("b", facts, 7)
		if err != nil {
			t.Fatal(err)
		}
		if next != 9 {
			t.Errorf("next = %d, want 9", next)
		}
		// prepared is the part of a fact PrepareFacts sets.
		type prepared struct {
			ID, BankID  string
			Seq         int64
			Status      memory.Status
			Kind        memory.FactKind
			Sensitivity memory.Sensitivity
		}
		for i, want := range []prepared{
			{"f1", "b", 7, memory.StatusActive, memory.KindWorld, memory.SensitivityOpen},
			{"f2", "b", 8, memory.StatusArchived, memory.KindExperience, memory.SensitivityPrivate},
		} {
			f := facts[i]
			got := prepared{f.ID, f.BankID, f.Seq, f.Status, f.Kind, f.Sensitivity}
			if got != want {
				t.Errorf("fact %d = %+v, want %+v", i, got, want)
			}
		}
	})
	for _, tt := range []struct {
		name  string
		facts []*memory.Fact
		code  string
	}{
		{"ErrNoID", []*memory.Fact{{ID: "f1"}, {}}, memory.EINVALID},
		{"ErrTwice", []*memory.Fact{{ID: "f1"}, {ID: "f2"}, {ID: "f1"}}, memory.ECONFLICT},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := memory.PrepareFacts("b", tt.facts, 1); code(err) != tt.code {
				t.Errorf("err = %v, want code %q", err, tt.code)
			}
		})
	}
}

func TestEntityUpsert_Stored(t *testing.T) {
	t.Run("Defaults", func(t *testing.T) {
		u := memory.EntityUpsert{Entity: memory.Entity{ID: "e", Name: "Berlin"}}
		e, err := u.Stored()
		if err != nil {
			t.Fatal(err)
		}
		if e.Type != memory.EntityThing || e.Tier != memory.TierEpisodic {
			t.Errorf("type, tier = %q, %q, want %q, %q", e.Type, e.Tier, memory.EntityThing, memory.TierEpisodic)
		}
		if u.Entity.Type != "" || u.Entity.Tier != "" {
			t.Errorf("u changed: %+v", u.Entity)
		}
	})
	t.Run("Kept", func(t *testing.T) {
		u := memory.EntityUpsert{Entity: memory.Entity{ID: "e", Name: "Berlin", Type: memory.EntityPlace, Tier: memory.TierSemantic}}
		e, err := u.Stored()
		if err != nil {
			t.Fatal(err)
		}
		if e.Type != memory.EntityPlace || e.Tier != memory.TierSemantic {
			t.Errorf("type, tier = %q, %q", e.Type, e.Tier)
		}
	})
	for _, u := range []memory.EntityUpsert{
		{Entity: memory.Entity{Name: "Berlin"}},
		{Entity: memory.Entity{ID: "e"}},
	} {
		if _, err := u.Stored(); code(err) != memory.EINVALID {
			t.Errorf("Stored(%+v) err = %v, want EINVALID", u.Entity, err)
		}
		if err := u.Validate(); code(err) != memory.EINVALID {
			t.Errorf("Validate(%+v) err = %v, want EINVALID", u.Entity, err)
		}
	}
}

func TestValidateAppend(t *testing.T) {
	user := memory.SessionMessage{Role: memory.RoleUser}
	for _, tt := range []struct {
		name    string
		session string
		msgs    []memory.SessionMessage
		code    string
	}{
		{"OK", "s", []memory.SessionMessage{user, {Role: memory.RoleAssistant}}, ""},
		{"Empty", "s", nil, ""},
		{"ErrNoSession", "", []memory.SessionMessage{user}, memory.EINVALID},
		{"ErrRole", "s", []memory.SessionMessage{user, {Role: "system"}}, memory.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := memory.ValidateAppend(tt.session, tt.msgs); code(err) != tt.code {
				t.Errorf("err = %v, want code %q", err, tt.code)
			}
		})
	}
	err := memory.ValidateAppend("s", []memory.SessionMessage{user, {Role: "system"}})
	if got, want := memory.ErrorMessage(err), `session message 2: role "system" is not user or assistant`; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestNumberMessages(t *testing.T) {
	msgs := make([]memory.SessionMessage, 3)
	if next := memory.NumberMessages(msgs, 4); next != 7 {
		t.Errorf("next = %d, want 7", next)
	}
	for i, m := range msgs {
		if want := int64(4 + i); m.Seq != want {
			t.Errorf("msgs[%d].Seq = %d, want %d", i, m.Seq, want)
		}
	}
}

// clock returns a clock stopped at t that counts its reads.
func clock(t time.Time, reads *int) func() time.Time {
	return func() time.Time { *reads++; return t }
}

func TestJob_PrepareEnqueue(t *testing.T) {
	now := time.Date(2024, 3, 4, 5, 6, 7, 891234567, time.FixedZone("x", 3600))
	t.Run("OK", func(t *testing.T) {
		var reads int
		j := memory.Job{ID: "j", BankID: "b", Kind: "k", Status: memory.JobDone, Attempts: 3, Result: []byte("{}"), Error: "e"}
		if err := j.PrepareEnqueue(clock(now, &reads)); err != nil {
			t.Fatal(err)
		}
		want := now.UTC().Truncate(time.Microsecond)
		if !j.CreatedAt.Equal(want) || j.CreatedAt.Location() != time.UTC || j.CreatedAt.Nanosecond()%1000 != 0 {
			t.Errorf("CreatedAt = %v, want %v", j.CreatedAt, want)
		}
		if j.Status != memory.JobQueued || j.Attempts != 0 || !j.UpdatedAt.Equal(j.CreatedAt) || j.Result != nil || j.Error != "" {
			t.Errorf("job = %+v", j)
		}
		if reads != 1 {
			t.Errorf("clock read %d times, want 1", reads)
		}
	})
	t.Run("CreatedAtKept", func(t *testing.T) {
		var reads int
		at := now.Add(-time.Hour)
		j := memory.Job{ID: "j", BankID: "b", Kind: "k", CreatedAt: at}
		if err := j.PrepareEnqueue(clock(now, &reads)); err != nil {
			t.Fatal(err)
		}
		if !j.CreatedAt.Equal(at) || !j.UpdatedAt.Equal(at) || reads != 0 {
			t.Errorf("CreatedAt, UpdatedAt = %v, %v (clock read %d times), want %v", j.CreatedAt, j.UpdatedAt, reads, at)
		}
	})
	for _, j := range []memory.Job{{BankID: "b", Kind: "k"}, {ID: "j", Kind: "k"}, {ID: "j", BankID: "b"}} {
		var reads int
		if err := j.PrepareEnqueue(clock(now, &reads)); code(err) != memory.EINVALID {
			t.Errorf("PrepareEnqueue(%+v) err = %v, want EINVALID", j, err)
		}
	}
}

func TestJob_PrepareFinish(t *testing.T) {
	now := time.Date(2024, 3, 4, 5, 6, 7, 891234567, time.UTC)
	for _, tt := range []struct {
		status memory.JobStatus
		code   string
	}{
		{memory.JobDone, ""}, {memory.JobFailed, ""}, {memory.JobQueued, ""},
		{memory.JobRunning, memory.EINVALID}, {"", memory.EINVALID},
	} {
		var reads int
		j := memory.Job{ID: "j", Status: tt.status}
		err := j.PrepareFinish(clock(now, &reads))
		if code(err) != tt.code {
			t.Errorf("status %q: err = %v, want code %q", tt.status, err, tt.code)
		}
		if err == nil && !j.UpdatedAt.Equal(now.Truncate(time.Microsecond)) {
			t.Errorf("status %q: UpdatedAt = %v", tt.status, j.UpdatedAt)
		}
	}
	var reads int
	at := now.Add(time.Hour)
	j := memory.Job{ID: "j", Status: memory.JobQueued, UpdatedAt: at}
	if err := j.PrepareFinish(clock(now, &reads)); err != nil || !j.UpdatedAt.Equal(at) || reads != 0 {
		t.Errorf("UpdatedAt = %v, err %v, clock read %d times; want %v kept", j.UpdatedAt, err, reads, at)
	}
}

func TestBank_Prepare(t *testing.T) {
	now := time.Date(2024, 3, 4, 5, 6, 7, 891234567, time.UTC)
	for _, tt := range []struct {
		name           string
		in             memory.Bank
		wantID, wantNm string
		code           string
	}{
		{"NameOnly", memory.Bank{Name: "work"}, "work", "work", ""},
		{"IDOnly", memory.Bank{ID: "work"}, "work", "work", ""},
		{"Both", memory.Bank{ID: "w", Name: "Work"}, "w", "Work", ""},
		{"ErrEmpty", memory.Bank{}, "", "", memory.EINVALID},
		{"ErrName", memory.Bank{ID: "has space"}, "has space", "has space", memory.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var reads int
			b := tt.in
			err := b.Prepare(clock(now, &reads))
			if code(err) != tt.code {
				t.Fatalf("err = %v, want code %q", err, tt.code)
			}
			if b.ID != tt.wantID || b.Name != tt.wantNm {
				t.Errorf("id, name = %q, %q, want %q, %q", b.ID, b.Name, tt.wantID, tt.wantNm)
			}
			if err == nil && !b.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
				t.Errorf("CreatedAt = %v", b.CreatedAt)
			}
		})
	}
}

func TestFitDimension(t *testing.T) {
	vec := func(n int) *memory.Fact { return &memory.Fact{ID: "f", Embedding: make([]float32, n)} }
	for _, tt := range []struct {
		name  string
		dim   int
		facts []*memory.Fact
		want  int
		code  string
	}{
		{"NoneYet", 0, []*memory.Fact{vec(0), vec(3), vec(3)}, 3, ""},
		{"Held", 4, []*memory.Fact{vec(4), vec(0)}, 4, ""},
		{"NoEmbeddings", 0, []*memory.Fact{vec(0)}, 0, ""},
		{"ErrMixed", 0, []*memory.Fact{vec(3), vec(2)}, 3, memory.EINVALID},
		{"ErrBank", 4, []*memory.Fact{vec(3)}, 4, memory.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := memory.FitDimension("b", tt.dim, tt.facts)
			if code(err) != tt.code || got != tt.want {
				t.Errorf("FitDimension = %d, %v, want %d, code %q", got, err, tt.want, tt.code)
			}
		})
	}
}

func TestImportFact(t *testing.T) {
	dim := 0
	f, err := memory.ImportFact("b", &memory.ExportFact{ID: "f1", Seq: 2, Embedding: []float32{1, 2}}, &dim)
	if err != nil || f.BankID != "b" || f.ID != "f1" || f.Seq != 2 || dim != 2 {
		t.Fatalf("ImportFact = %+v, %v (dim %d)", f, err, dim)
	}
	for _, x := range []memory.ExportFact{{Seq: 1}, {ID: "f"}, {ID: "f", Seq: 1, Embedding: []float32{1}}} {
		if _, err := memory.ImportFact("b", &x, &dim); code(err) != memory.EINVALID {
			t.Errorf("ImportFact(%+v) err = %v, want EINVALID", x, err)
		}
	}
}

func TestValidateObservations(t *testing.T) {
	ok := &memory.Observation{ID: "o", Text: "t"}
	for _, tt := range []struct {
		name string
		obs  []*memory.Observation
		code string
	}{
		{"OK", []*memory.Observation{ok}, ""},
		{"ErrNil", []*memory.Observation{ok, nil}, memory.EINVALID},
		{"ErrNoText", []*memory.Observation{{ID: "o"}}, memory.EINVALID},
		{"ErrNoID", []*memory.Observation{{Text: "t"}}, memory.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := memory.ValidateObservations(tt.obs); code(err) != tt.code {
				t.Errorf("err = %v, want code %q", err, tt.code)
			}
		})
	}
	s, k := (&memory.Observation{}).StatusKind()
	if s != memory.StatusActive || k != memory.ObservationPattern {
		t.Errorf("StatusKind of zero = %q, %q", s, k)
	}
	s, k = (&memory.Observation{Status: memory.StatusArchived, Kind: memory.ObservationTrend}).StatusKind()
	if s != memory.StatusArchived || k != memory.ObservationTrend {
		t.Errorf("StatusKind kept = %q, %q", s, k)
	}
}

func TestSmallRules(t *testing.T) {
	if err := memory.ValidateDocument(&memory.Document{ID: "d", Source: "s", ItemID: "i"}); err != nil {
		t.Errorf("ValidateDocument: %v", err)
	}
	for _, d := range []memory.Document{{Source: "s", ItemID: "i"}, {ID: "d", ItemID: "i"}, {ID: "d", Source: "s"}} {
		if err := memory.ValidateDocument(&d); code(err) != memory.EINVALID {
			t.Errorf("ValidateDocument(%+v) = %v, want EINVALID", d, err)
		}
	}
	if err := (&memory.SessionDrain{}).Validate(); code(err) != memory.EINVALID {
		t.Errorf("SessionDrain{}.Validate() = %v, want EINVALID", err)
	}
	if err := (&memory.SessionDrain{Session: "s"}).Validate(); err != nil {
		t.Errorf("SessionDrain.Validate() = %v", err)
	}
	for _, tt := range []struct {
		name string
		dim  int
		ok   bool
	}{{"e", 3, true}, {"", 3, false}, {"e", 0, false}} {
		if err := memory.ValidateEmbedder(tt.name, tt.dim); (err == nil) != tt.ok {
			t.Errorf("ValidateEmbedder(%q, %d) = %v", tt.name, tt.dim, err)
		}
	}
	if err := memory.EmbedderConflict("b", "a", 3, "c", 4); code(err) != memory.ECONFLICT {
		t.Errorf("EmbedderConflict code = %q", code(err))
	}
	if err := memory.UnknownBank("b"); code(err) != memory.ENOTFOUND {
		t.Errorf("UnknownBank code = %q", code(err))
	}
}

func TestOrderByIDs(t *testing.T) {
	byID := map[string]int{"a": 1, "b": 2, "c": 3}
	got := memory.OrderByIDs([]string{"c", "x", "a", "c", "b"}, byID)
	if want := []int{3, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("OrderByIDs = %v, want %v", got, want)
	}
	if got := memory.OrderByIDs(nil, byID); len(got) != 0 {
		t.Errorf("OrderByIDs(nil) = %v, want none", got)
	}
}

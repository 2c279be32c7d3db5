package mnemo_test

import (
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

func TestEngine_UpdateBank(t *testing.T) {
	ctx := t.Context()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.CreateBank(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		want := memory.BankSettings{Skepticism: 4, Literalism: 2, Empathy: 5, Mission: "m", Background: "b"}
		b, err := eng.UpdateBank(ctx, "alice", want)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(b.Settings, want) {
			t.Errorf("returned settings = %+v, want %+v", b.Settings, want)
		}
		got, err := eng.Bank(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Settings, want) {
			t.Errorf("stored settings = %+v, want %+v", got.Settings, want)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		before, _ := eng.Bank(ctx, "alice")
		_, err := eng.UpdateBank(ctx, "alice", memory.BankSettings{Empathy: 7})
		if got := memory.ErrorCode(err); got != memory.EINVALID {
			t.Errorf("UpdateBank(empathy 7) code = %q, want %q", got, memory.EINVALID)
		}
		after, _ := eng.Bank(ctx, "alice")
		if !reflect.DeepEqual(after.Settings, before.Settings) {
			t.Errorf("refused update changed settings: %+v → %+v", before.Settings, after.Settings)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := eng.UpdateBank(ctx, "nobody", memory.BankSettings{})
		if got := memory.ErrorCode(err); got != memory.ENOTFOUND {
			t.Errorf("UpdateBank(unknown) code = %q, want %q", got, memory.ENOTFOUND)
		}
	})
}

// TestEngine_ChangeBank checks that concurrent changes of different
// fields all land: none reads the settings before another's write.
func TestEngine_ChangeBank(t *testing.T) {
	ctx := t.Context()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(t.TempDir(), "m.db"), JobPoll: -1, SessionIdle: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.CreateBank(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	changes := []func(*memory.BankSettings){
		func(s *memory.BankSettings) { s.Skepticism = 4 },
		func(s *memory.BankSettings) { s.Literalism = 2 },
		func(s *memory.BankSettings) { s.Empathy = 5 },
		func(s *memory.BankSettings) { s.Mission = "m" },
		func(s *memory.BankSettings) { s.Background = "b" },
	}
	var wg sync.WaitGroup
	for _, c := range changes {
		wg.Go(func() {
			if _, err := eng.ChangeBank(ctx, "alice", c); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b, err := eng.Bank(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if want := (memory.BankSettings{Skepticism: 4, Literalism: 2, Empathy: 5, Mission: "m", Background: "b"}); !reflect.DeepEqual(b.Settings, want) {
		t.Errorf("settings after concurrent changes = %+v, want %+v", b.Settings, want)
	}
	if _, err := eng.ChangeBank(ctx, "nobody", func(s *memory.BankSettings) { s.Empathy = 9 }); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("ChangeBank(unknown bank): %v, want ENOTFOUND", err)
	}
	if _, err := eng.ChangeBank(ctx, "alice", func(s *memory.BankSettings) { s.Empathy = 9 }); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("ChangeBank(empathy 9): %v, want EINVALID", err)
	}
}

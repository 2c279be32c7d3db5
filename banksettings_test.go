package mnemo_test

import (
	"path/filepath"
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
		if b.Settings != want {
			t.Errorf("returned settings = %+v, want %+v", b.Settings, want)
		}
		got, err := eng.Bank(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if got.Settings != want {
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
		if after.Settings != before.Settings {
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

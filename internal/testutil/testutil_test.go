package testutil_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
)

func TestOpenStore(t *testing.T) {
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "b1")
	if got := filepath.Base(s.Path()); got != "mnemo.db" {
		t.Errorf("Path base = %q, want mnemo.db", got)
	}
	got := testutil.Stats(t, s, "b1")
	if got != (memory.Stats{}) {
		t.Errorf("Stats of a new bank = %+v, want zero", got)
	}
	// Each call gets its own file.
	other := testutil.OpenStore(t)
	if other.Path() == s.Path() {
		t.Fatalf("two OpenStore calls share %s", s.Path())
	}
	if _, err := other.Bank(context.Background(), "b1"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Bank in a second store: err = %v, want ENOTFOUND", err)
	}
}

func TestOpenStoreAt_Reopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.db")
	s := testutil.OpenStoreAt(t, path)
	testutil.CreateBank(t, s, "kept")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := testutil.OpenStoreAt(t, path)
	b, err := s2.Bank(context.Background(), "kept")
	if err != nil {
		t.Fatalf("Bank after reopen: %v", err)
	}
	if b.Name != "kept" {
		t.Errorf("Name = %q, want kept", b.Name)
	}
}

func TestClock(t *testing.T) {
	t.Run("Zero", func(t *testing.T) {
		var c testutil.Clock
		if got := c.Now(); !got.Equal(testutil.Epoch) {
			t.Errorf("zero Clock.Now = %v, want %v", got, testutil.Epoch)
		}
		if got, want := c.Advance(time.Hour), testutil.Epoch.Add(time.Hour); !got.Equal(want) {
			t.Errorf("Advance = %v, want %v", got, want)
		}
	})
	t.Run("SetAdvance", func(t *testing.T) {
		start := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
		c := testutil.NewClock(start)
		if got := c.Now(); !got.Equal(start) {
			t.Fatalf("Now = %v, want %v", got, start)
		}
		if got := c.Now(); !got.Equal(start) {
			t.Fatalf("Now moved by itself: %v", got)
		}
		c.Advance(120 * 24 * time.Hour)
		if got, want := c.Now(), start.AddDate(0, 0, 120); !got.Equal(want) {
			t.Errorf("after Advance(120d) Now = %v, want %v", got, want)
		}
		c.Set(start)
		if got := c.Now(); !got.Equal(start) {
			t.Errorf("after Set Now = %v, want %v", got, start)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		c := testutil.NewClock(testutil.Epoch)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 100 {
					c.Advance(time.Second)
					c.Now()
				}
			}()
		}
		wg.Wait()
		if got, want := c.Now(), testutil.Epoch.Add(800*time.Second); !got.Equal(want) {
			t.Errorf("Now = %v, want %v", got, want)
		}
	})
}

func TestFailingStore_Write(t *testing.T) {
	ctx := context.Background()
	inner := testutil.OpenStore(t)
	testutil.CreateBank(t, inner, "b")
	s := &testutil.FailingStore{Store: inner, WriteErr: testutil.ErrInjected}
	batch := func(item string) *memory.WriteBatch {
		return &memory.WriteBatch{BankID: "b", Document: &memory.Document{ID: "doc-" + item, Source: "api", ItemID: item, ContentHash: item}}
	}
	if _, err := s.Write(ctx, batch("one")); !errors.Is(err, testutil.ErrInjected) {
		t.Fatalf("Write err = %v, want ErrInjected", err)
	}
	if got := testutil.Stats(t, inner, "b").Documents; got != 0 {
		t.Fatalf("failed Write stored %d documents", got)
	}
	s.WriteErr = nil
	if _, err := s.Write(ctx, batch("two")); err != nil {
		t.Fatalf("Write without WriteErr: %v", err)
	}
	if got := testutil.Stats(t, inner, "b").Documents; got != 1 {
		t.Errorf("Documents = %d, want 1", got)
	}
	if got := s.Writes(); got != 2 {
		t.Errorf("Writes = %d, want 2", got)
	}
	// Other methods reach the inner store.
	if _, err := s.DocumentByItem(ctx, "b", "api", "two"); err != nil {
		t.Errorf("DocumentByItem through the wrapper: %v", err)
	}
}

func TestFailingEmbedder(t *testing.T) {
	ctx := context.Background()
	inner := hashembed.New(16)
	e := &testutil.FailingEmbedder{Embedder: inner}
	if got, want := e.Name(), inner.Name(); got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	e.NameOverride = "other-embedder"
	if got := e.Name(); got != "other-embedder" {
		t.Errorf("Name with override = %q", got)
	}
	if got := e.Dimension(); got != 16 {
		t.Errorf("Dimension = %d, want 16", got)
	}
	vecs, err := e.Embed(ctx, []string{"support group", "painting"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != 16 {
		t.Fatalf("Embed = %d vectors, %v", len(vecs), err)
	}
	e.Err = testutil.ErrInjected
	if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, testutil.ErrInjected) {
		t.Errorf("Embed err = %v, want ErrInjected", err)
	}
	if got := e.Calls(); got != 2 {
		t.Errorf("Calls = %d, want 2", got)
	}
}

func TestKnownBug(t *testing.T) {
	t.Run("Unset", func(t *testing.T) {
		t.Setenv(testutil.KnownBugEnv, "")
		ran := false
		sub := t.Run("bug", func(t *testing.T) {
			testutil.KnownBug(t, "example")
			ran = true
		})
		if !sub || ran {
			t.Errorf("KnownBug without %s: body ran = %v, want skipped", testutil.KnownBugEnv, ran)
		}
	})
	t.Run("Set", func(t *testing.T) {
		t.Setenv(testutil.KnownBugEnv, "1")
		ran := false
		t.Run("bug", func(t *testing.T) {
			testutil.KnownBug(t, "example")
			ran = true
		})
		if !ran {
			t.Errorf("KnownBug with %s set skipped the test", testutil.KnownBugEnv)
		}
	})
}

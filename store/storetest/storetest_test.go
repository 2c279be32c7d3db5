package storetest

import (
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
)

// TestRun runs the suite on memStore, which checks the suite itself.
func TestRun(t *testing.T) {
	Run(t, func(t *testing.T) memory.Store {
		s := newMemStore()
		t.Cleanup(func() { s.Close() })
		return s
	})
}

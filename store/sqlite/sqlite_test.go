package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// open returns a store on a new file in the test's temp directory.
func open(t *testing.T) memory.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore_Conformance(t *testing.T) {
	storetest.Run(t, open)
}

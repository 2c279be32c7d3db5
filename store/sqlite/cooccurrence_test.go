package sqlite_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

func TestStore_CooccurrenceForget(t *testing.T) {
	storetest.CheckCooccurrenceForget(t, testutil.OpenStore(t))
}

package postgres_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/store/storetest"
)

func TestStore_CooccurrenceForget(t *testing.T) {
	storetest.CheckCooccurrenceForget(t, openStore(t, schemaURL(t)))
}

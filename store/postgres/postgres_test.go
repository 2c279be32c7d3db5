package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/postgres"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// testURL returns the database of MNEMO_TEST_POSTGRES, or skips the test
// (scripts/pg-test.sh starts one; .ci/run always does).
func testURL(t testing.TB) string {
	u := os.Getenv("MNEMO_TEST_POSTGRES")
	if u == "" {
		t.Skip("MNEMO_TEST_POSTGRES is not set (scripts/pg-test.sh start prints a URL)")
	}
	return u
}

// schemaURL creates a schema of its own for one test on the test database
// and returns a URL whose connections use it (search_path); the schema
// is dropped when the test ends. Extensions stay in public.
func schemaURL(t testing.TB) string {
	t.Helper()
	base := testURL(t)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect %s: %v", base, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("connect: %v", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

// openStore opens a store on a new schema; it is closed when the test ends.
func openStore(t testing.TB, u string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore_Conformance(t *testing.T) {
	testURL(t)
	storetest.Run(t, func(t *testing.T) memory.Store {
		return openStore(t, schemaURL(t))
	})
}

package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// Every primary key and index of the schema starts with bank_id (or, for
// a bank's HNSW index, is confined to one bank by its predicate), and
// every table but the bank directory has a bank_id: the schema can be
// sharded by bank (docs/postgres.md) with no change.
func TestSchema_KeyedByBank(t *testing.T) {
	s := openStore(t, schemaURL(t))
	ctx := context.Background()
	// Build a bank's HNSW index so that it is checked too.
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b:1"}); err != nil {
		t.Fatal(err)
	}
	w := storetest.NewTestBatch("b:1", "doc", "Melanie likes jazz", "Melanie lives in Lyon")
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := s.BuildIndex(ctx, "b:1"); err != nil {
		t.Fatalf("BuildIndex: %v", err)
	}

	rows, err := s.Pool().Query(ctx, `SELECT t.relname, i.relname, x.indisprimary,
			(SELECT a.attname FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attnum = x.indkey[0]),
			coalesce(pg_get_expr(x.indpred, x.indrelid), '')
		FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_class t ON t.oid = x.indrelid
		WHERE t.relnamespace = current_schema()::regnamespace AND t.relkind = 'r'
		ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]int{}
	hnsw := 0
	for rows.Next() {
		var table, index, first, pred string
		var primary bool
		var firstCol *string
		if err := rows.Scan(&table, &index, &primary, &firstCol, &pred); err != nil {
			t.Fatal(err)
		}
		if firstCol != nil {
			first = *firstCol
		}
		seen[table]++
		switch {
		case table == "schema_migrations":
			// The schema's own bookkeeping, not data.
		case table == "banks":
			// The directory of banks: keyed by the bank id itself (id);
			// its name is the other unique key. A reference table in Citus.
			if first != "id" && first != "name" {
				t.Errorf("banks: index %s starts with %q, want id or name", index, first)
			}
		case table == "api_keys":
			// The directory of API keys, beside the banks (keys.go): keyed
			// by its own id, its hash and the bank it names.
			if first != "id" && first != "hash" && first != "bank" {
				t.Errorf("api_keys: index %s starts with %q, want id, hash or bank", index, first)
			}
		case first == "bank_id":
		case first == "" && strings.HasPrefix(pred, "(bank_id = "):
			hnsw++ // an expression index confined to one bank
		default:
			t.Errorf("%s: index %s (primary %v) starts with %q, predicate %q: want bank_id first", table, index, primary, first, pred)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if hnsw != 1 {
		t.Errorf("found %d per-bank HNSW indexes, want 1", hnsw)
	}
	// Every table has a primary key, and a bank_id unless it is banks.
	trows, err := s.Pool().Query(ctx, `SELECT c.relname,
			EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = c.oid AND x.indisprimary),
			EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'bank_id')
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer trows.Close()
	n := 0
	for trows.Next() {
		var table string
		var pk, bank bool
		if err := trows.Scan(&table, &pk, &bank); err != nil {
			t.Fatal(err)
		}
		n++
		if !pk {
			t.Errorf("table %s has no primary key", table)
		}
		if !bank && table != "banks" && table != "api_keys" && table != "schema_migrations" {
			t.Errorf("table %s has no bank_id", table)
		}
	}
	if n < 15 {
		t.Errorf("found %d tables, want the whole schema: %v", n, fmt.Sprint(seen))
	}
}

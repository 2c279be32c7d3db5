package postgres

import (
	"context"
	"fmt"
	"net/url"
	"regexp"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// Schemas let one database hold several independent mnemo stores (tests,
// benchmarks): a store opened with WithSchema's URL creates its tables in
// that schema. The extensions stay where they are (public).

var schemaRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// WithSchema returns dbURL with its connections' search_path set to
// schema, then public (where the vector extension usually lives).
func WithSchema(dbURL, schema string) (string, error) {
	if !schemaRE.MatchString(schema) {
		return "", memory.Errorf(memory.EINVALID, "schema name %q: use lower-case letters, digits and _", schema)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", memory.Errorf(memory.EINVALID, "postgres URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// CreateSchema creates schema (if missing) in the database at dbURL and
// returns a URL whose connections use it (WithSchema).
func CreateSchema(ctx context.Context, dbURL, schema string) (string, error) {
	u, err := WithSchema(dbURL, schema)
	if err != nil {
		return "", err
	}
	return u, execOnce(ctx, dbURL, `CREATE SCHEMA IF NOT EXISTS `+schema)
}

// DropSchema drops schema and everything in it.
func DropSchema(ctx context.Context, dbURL, schema string) error {
	if !schemaRE.MatchString(schema) {
		return memory.Errorf(memory.EINVALID, "schema name %q: use lower-case letters, digits and _", schema)
	}
	return execOnce(ctx, dbURL, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`)
}

func execOnce(ctx context.Context, dbURL, sql string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return memory.Errorf(memory.EUNAVAILABLE, "postgres: connect: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("postgres: %s: %w", sql, err)
	}
	return nil
}

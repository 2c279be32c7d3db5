package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/mnemo-ai/mnemo/memory"
)

// bankRow is what the read path checks of a bank's row in banks: that it
// exists, the search mirror's change counter, the active observations'
// count and the fact cache's stamp.
type bankRow struct {
	version, observations int64
	facts                 factStamp // facts.created is the bank's creation time
}

// bankRowKey names a bank's row in a memory.ReadScope; c tells the
// stores of one scope apart.
type bankRowKey struct {
	c    *stmtCache
	bank string
}

// bank reads the row of bank, or ENOTFOUND: once per memory.ReadScope
// that ctx carries (a recall makes about ten such checks), at every call
// without one.
func (c *stmtCache) bank(ctx context.Context, bank string) (bankRow, error) {
	v, err := memory.ReadScopeOf(ctx).Remember(bankRowKey{c, bank}, func() (any, error) {
		var r bankRow
		err := c.queryRow(ctx, `SELECT version, observations, fact_rev, access_version, created_at FROM banks WHERE id = ?`, bank).
			Scan(&r.version, &r.observations, &r.facts.rev, &r.facts.access, &r.facts.created)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, memory.UnknownBank(bank)
		}
		return r, err
	})
	if err != nil {
		return bankRow{}, err
	}
	return v.(bankRow), nil
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mnemo-ai/mnemo/internal/dbrows"
	"github.com/mnemo-ai/mnemo/memory"
)

// Webhooks (migration 022): a bank's event subscriptions.

// CreateWebhook implements memory.Webhooks.
func (s *Store) CreateWebhook(ctx context.Context, w *memory.Webhook) error {
	if err := memory.ValidateWebhook(w); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, w.BankID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks (bank_id, id, url, secret, events, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			w.BankID, w.ID, w.URL, w.Secret, stringsJSON(w.Events), w.CreatedAt.UnixMicro())
		if isConstraint(err) {
			return memory.Errorf(memory.ECONFLICT, "webhook %s already exists in bank %q", w.ID, w.BankID)
		}
		if err != nil {
			return fmt.Errorf("create webhook: %w", err)
		}
		return nil
	})
}

// Webhooks implements memory.Webhooks.
func (s *Store) Webhooks(ctx context.Context, bankID string) ([]*memory.Webhook, error) {
	if err := requireBank(ctx, s.rdb, bankID); err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT bank_id, id, url, secret, events, created_at FROM webhooks WHERE bank_id = ? ORDER BY created_at, id`, bankID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	defer rows.Close()
	return dbrows.Collect(rows, func(r interface{ Scan(...any) error }) (*memory.Webhook, error) {
		var w memory.Webhook
		var events string
		var created int64
		if err := r.Scan(&w.BankID, &w.ID, &w.URL, &w.Secret, &events, &created); err != nil {
			return nil, err
		}
		if err := unmarshalJSON(events, &w.Events); err != nil {
			return nil, err
		}
		w.CreatedAt = fromMicro(created)
		return &w, nil
	})
}

// DeleteWebhook implements memory.Webhooks.
func (s *Store) DeleteWebhook(ctx context.Context, bankID, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := requireBank(ctx, tx, bankID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE bank_id = ? AND id = ?`, bankID, id)
		if err != nil {
			return fmt.Errorf("delete webhook: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return memory.Errorf(memory.ENOTFOUND, "no webhook %s in bank %q", id, bankID)
		}
		return nil
	})
}

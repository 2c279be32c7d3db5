package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/memory"
)

// Webhooks (memory.Webhooks): one row each in webhooks (migration 022).

var _ memory.Webhooks = (*Store)(nil)

// CreateWebhook implements memory.Webhooks.
func (s *Store) CreateWebhook(ctx context.Context, w *memory.Webhook) error {
	if err := memory.ValidateWebhook(w); err != nil {
		return err
	}
	if err := requireBank(ctx, s.pool, w.BankID); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO webhooks (bank_id, id, url, secret, events, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		w.BankID, w.ID, w.URL, w.Secret, w.Events, w.CreatedAt.UTC().Truncate(time.Microsecond))
	if isCode(err, "23505") {
		return memory.Errorf(memory.ECONFLICT, "webhook %s already exists in bank %q", w.ID, w.BankID)
	}
	if isCode(err, "23503") {
		return memory.Errorf(memory.ENOTFOUND, "bank %q not found", w.BankID)
	}
	if err != nil {
		return fmt.Errorf("create webhook: %w", err)
	}
	return nil
}

// Webhooks implements memory.Webhooks.
func (s *Store) Webhooks(ctx context.Context, bankID string) ([]*memory.Webhook, error) {
	if err := requireBank(ctx, s.pool, bankID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, url, secret, events, created_at FROM webhooks WHERE bank_id = $1 ORDER BY created_at, id`, bankID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*memory.Webhook, error) {
		w := memory.Webhook{BankID: bankID}
		var created time.Time
		if err := r.Scan(&w.ID, &w.URL, &w.Secret, &w.Events, &created); err != nil {
			return nil, err
		}
		w.CreatedAt = created.UTC()
		return &w, nil
	})
}

// DeleteWebhook implements memory.Webhooks.
func (s *Store) DeleteWebhook(ctx context.Context, bankID, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM webhooks WHERE bank_id = $1 AND id = $2`, bankID, id)
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	if tag.RowsAffected() == 0 {
		if err := requireBank(ctx, s.pool, bankID); err != nil {
			return err
		}
		return memory.Errorf(memory.ENOTFOUND, "no webhook %s in bank %q", id, bankID)
	}
	return nil
}

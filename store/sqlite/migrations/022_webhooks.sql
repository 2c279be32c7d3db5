-- mnemo schema: webhooks (a bank's event subscriptions). Bank data:
-- deleted with the bank, never exported (the secret signs deliveries).
-- Deliveries are jobs of kind "webhook" in the job queue.
CREATE TABLE webhooks (
    bank_id    TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    url        TEXT NOT NULL,
    secret     TEXT NOT NULL,
    events     TEXT NOT NULL, -- JSON array
    created_at INTEGER NOT NULL,
    PRIMARY KEY (bank_id, id)
);

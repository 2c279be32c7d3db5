-- Webhooks (a bank's event subscriptions). Bank data: deleted with the
-- bank, never exported (the secret signs deliveries). Deliveries are jobs
-- of kind "webhook" in the job queue.
CREATE TABLE webhooks (
    bank_id    text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         text COLLATE "C" NOT NULL,
    url        text NOT NULL,
    secret     text NOT NULL,
    events     text[] NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (bank_id, id)
);

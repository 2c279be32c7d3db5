-- mnemo PostgreSQL schema v4: forget. The audit record of every forget:
-- who, when, the selector as given (never the forgotten text) and what
-- it removed (memory.ForgetAudit, memory.ForgetCounts).
CREATE TABLE forget_log (
    bank_id  text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id       text COLLATE "C" NOT NULL,
    at       timestamptz NOT NULL,
    actor    text NOT NULL DEFAULT '',
    selector jsonb NOT NULL DEFAULT '{}',
    counts   jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX forget_log_at ON forget_log (bank_id, at);

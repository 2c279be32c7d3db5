-- mnemo schema v5: forget. The audit record of every forget: who, when,
-- the selector as given (never the forgotten text) and what it removed,
-- both as JSON (memory.ForgetAudit, memory.ForgetCounts).
CREATE TABLE forget_log (
    bank_id  TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id       TEXT NOT NULL,
    at       INTEGER NOT NULL,
    actor    TEXT NOT NULL DEFAULT '',
    selector TEXT NOT NULL DEFAULT '{}',
    counts   TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX forget_log_at ON forget_log(bank_id, at);

-- FTS5 keeps a deleted row's tokens in its segments until a merge
-- rewrites them; 'secure-delete' removes them from the segments at once
-- (a persistent option of the table).
INSERT INTO facts_fts(facts_fts, rank) VALUES('secure-delete', 1);
INSERT INTO observations_fts(observations_fts, rank) VALUES('secure-delete', 1);

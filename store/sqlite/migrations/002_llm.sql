-- mnemo schema v2: what the LLM write path, async retain and streaming
-- sessions need.

-- Entity name embeddings, for resolving a new name to a known entity of
-- the same type by similarity (DESIGN §4 step 7).
ALTER TABLE entities ADD COLUMN embedding BLOB;

-- "What did this fact replace?" for recall's history line.
CREATE INDEX facts_superseded_by ON facts(bank_id, superseded_by) WHERE superseded_by != '';

-- The durable queue of asynchronous work (retain --async).
CREATE TABLE jobs (
    bank_id    TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    payload    BLOB NOT NULL,
    status     TEXT NOT NULL DEFAULT 'queued',
    attempts   INTEGER NOT NULL DEFAULT 0,
    result     BLOB,
    error      TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX jobs_queue ON jobs(status, created_at);

-- Streaming chat sessions: messages buffered until extraction fires
-- (seed 001: every 10 user messages or 5 minutes idle).
CREATE TABLE session_messages (
    bank_id    TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    session    TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    role       TEXT NOT NULL,
    message_id TEXT NOT NULL DEFAULT '',
    speaker    TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL,
    at         INTEGER,
    received   INTEGER NOT NULL,
    PRIMARY KEY (bank_id, session, seq)
);

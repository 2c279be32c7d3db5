-- mnemo schema v2: what the LLM write path, async retain and streaming
-- sessions need.

-- Entity name embeddings, for resolving a new name to a known entity of
-- the same type by similarity (DESIGN §4 step 7).
ALTER TABLE entities ADD COLUMN embedding BLOB;

-- "What did this fact replace?" for recall's history line.
CREATE INDEX facts_superseded_by ON facts(bank_id, superseded_by) WHERE superseded_by != '';

-- The durable queue of asynchronous work (retain --async). A queued job
-- is due once updated_at has passed (a retry waits out its backoff); a
-- running job's updated_at is when it was claimed, so a job left running
-- by a dead process is requeued once that is older than the lease.
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
CREATE INDEX jobs_bank ON jobs(bank_id, created_at);

-- Streaming chat sessions: messages buffered until extraction fires
-- (seed 001: every 10 user messages or 5 minutes idle). received is when
-- the message arrived (the idle trigger's clock), at when it was said.
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

-- The next seq of each session ever appended to: seqs are never reused
-- once drained, so a session's documents (item "<session>:<first>-<last>")
-- never replace one another.
CREATE TABLE sessions (
    bank_id  TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    session  TEXT NOT NULL,
    next_seq INTEGER NOT NULL,
    PRIMARY KEY (bank_id, session)
);

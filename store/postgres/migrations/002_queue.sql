-- mnemo PostgreSQL schema v2: the durable state of background work (the
-- same as store/sqlite's 002): the job queue of asynchronous retains and
-- the buffers of streaming chat sessions.

-- A queued job is due once updated_at has passed (a retry waits out its
-- backoff); a running job's updated_at is when it was claimed, so a job
-- left running by a dead process is requeued once that is older than the
-- lease. ClaimJob looks across banks: the partial indexes hold only the
-- few queued or running jobs, so reading them whole is cheap, and they
-- still start with bank_id like every other index.
CREATE TABLE jobs (
    bank_id    text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         text COLLATE "C" NOT NULL,
    kind       text NOT NULL,
    payload    bytea NOT NULL,
    status     text NOT NULL DEFAULT 'queued',
    attempts   integer NOT NULL DEFAULT 0,
    result     bytea,
    error      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX jobs_bank ON jobs (bank_id, created_at);
CREATE INDEX jobs_queued ON jobs (bank_id, created_at, updated_at) WHERE status = 'queued';
CREATE INDEX jobs_running ON jobs (bank_id, updated_at) WHERE status = 'running';

-- Streaming chat sessions: messages buffered until extraction fires.
CREATE TABLE session_messages (
    bank_id    text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    session    text COLLATE "C" NOT NULL,
    seq        bigint NOT NULL,
    role       text NOT NULL,
    message_id text NOT NULL DEFAULT '',
    speaker    text NOT NULL DEFAULT '',
    text       text NOT NULL,
    at         timestamptz,
    received   timestamptz NOT NULL,
    PRIMARY KEY (bank_id, session, seq)
);

-- The next seq of each session ever appended to: never reused.
CREATE TABLE sessions (
    bank_id  text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    session  text COLLATE "C" NOT NULL,
    next_seq bigint NOT NULL,
    PRIMARY KEY (bank_id, session)
);

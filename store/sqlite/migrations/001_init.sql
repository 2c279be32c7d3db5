-- mnemo schema v1: the whole data model of DESIGN §3.
-- Times are INTEGER microseconds since the Unix epoch (UTC); NULL is "unknown"
-- or "open". Every table is keyed by bank_id first: no read or write crosses
-- banks, and bank_id is the scale-out key.

CREATE TABLE banks (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    settings   TEXT NOT NULL DEFAULT '{}',
    embedder   TEXT NOT NULL DEFAULT '',
    dimension  INTEGER NOT NULL DEFAULT 0,
    -- version counts writes that change facts, so another process's vector
    -- index can tell it is stale; next_seq is the next fact's ingestion order.
    version    INTEGER NOT NULL DEFAULT 0,
    -- access_version counts recorded accesses, so an index can tell that
    -- the access counts it holds are stale.
    access_version INTEGER NOT NULL DEFAULT 0,
    next_seq   INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
);

CREATE TABLE documents (
    bank_id      TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id           TEXT NOT NULL,
    source       TEXT NOT NULL,
    item_id      TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    content      TEXT NOT NULL,
    metadata     TEXT NOT NULL DEFAULT '{}',
    tags         TEXT NOT NULL DEFAULT '[]',
    occurred_at  INTEGER,
    created_at   INTEGER,
    PRIMARY KEY (bank_id, id),
    UNIQUE (bank_id, source, item_id)
);

CREATE TABLE chunks (
    bank_id     TEXT NOT NULL,
    id          TEXT NOT NULL,
    document_id TEXT NOT NULL,
    idx         INTEGER NOT NULL,
    text        TEXT NOT NULL,
    PRIMARY KEY (bank_id, id),
    FOREIGN KEY (bank_id, document_id) REFERENCES documents(bank_id, id) ON DELETE CASCADE
);
CREATE INDEX chunks_document ON chunks(bank_id, document_id, idx);

-- facts.pk keys the FTS rows and the vector index entries; AUTOINCREMENT so a
-- deleted fact's pk is never reused (another process's index relies on it).
CREATE TABLE facts (
    pk                  INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_id             TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id                  TEXT NOT NULL,
    seq                 INTEGER NOT NULL,
    document_id         TEXT NOT NULL DEFAULT '',
    chunk_id            TEXT NOT NULL DEFAULT '',
    source_ref          TEXT NOT NULL DEFAULT '',
    text                TEXT NOT NULL,
    kind                TEXT NOT NULL DEFAULT 'world',
    category            TEXT NOT NULL DEFAULT '',
    confidence          REAL NOT NULL DEFAULT 1,
    importance          REAL NOT NULL DEFAULT 0.5,
    sensitivity         TEXT NOT NULL DEFAULT 'open',
    speaker             TEXT NOT NULL DEFAULT '',
    evidence            TEXT NOT NULL DEFAULT '',
    tags                TEXT NOT NULL DEFAULT '[]',
    embedding           BLOB,
    occurred_start      INTEGER,
    occurred_end        INTEGER,
    mentioned_at        INTEGER,
    valid_from          INTEGER,
    valid_to            INTEGER,
    created_at          INTEGER,
    expired_at          INTEGER,
    event_time          INTEGER, -- occurred_start, else mentioned_at, else created_at
    access_count        INTEGER NOT NULL DEFAULT 0,
    last_accessed       INTEGER,
    reinforcement_count INTEGER NOT NULL DEFAULT 0,
    decay_score         REAL NOT NULL DEFAULT 1,
    status              TEXT NOT NULL DEFAULT 'active',
    superseded_by       TEXT NOT NULL DEFAULT '',
    consolidated_at     INTEGER,
    expires_at          INTEGER,
    UNIQUE (bank_id, id)
);
-- seq is unique per bank by construction (banks.next_seq); it needs no index
-- of its own. The consolidation runner adds its own index when it comes.
CREATE INDEX facts_document ON facts(bank_id, document_id);
CREATE INDEX facts_event_time ON facts(bank_id, event_time);

-- Full text over speaker and fact text; contentless: the text lives in facts.
-- bank holds one token naming the bank, so a match is confined to its bank
-- inside the index (MATCH 'bank : … AND body : (…)'). Ranked keyword search
-- is served by the store's in-process index (see index.go); this is the
-- durable full-text index of the file, for SQL users and integrity checks.
CREATE VIRTUAL TABLE facts_fts USING fts5(
    bank, body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'
);

CREATE TABLE entities (
    bank_id       TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id            TEXT NOT NULL,
    name          TEXT NOT NULL,
    type          TEXT NOT NULL,
    first_seen    INTEGER,
    last_seen     INTEGER,
    mention_count INTEGER NOT NULL DEFAULT 0,
    episode_count INTEGER NOT NULL DEFAULT 0,
    salience      REAL NOT NULL DEFAULT 1,
    tier          TEXT NOT NULL DEFAULT 'L0',
    contradicted  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bank_id, id)
);

-- Every name an entity is known by, normalised; the canonical name too.
CREATE TABLE entity_aliases (
    bank_id   TEXT NOT NULL,
    norm      TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    alias     TEXT NOT NULL,
    PRIMARY KEY (bank_id, norm, entity_id)
) WITHOUT ROWID;
CREATE INDEX entity_aliases_entity ON entity_aliases(bank_id, entity_id);

-- seq is the fact's ingestion order, so "an entity's newest facts" is one
-- index walk.
CREATE TABLE entity_refs (
    bank_id   TEXT NOT NULL,
    fact_id   TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    PRIMARY KEY (bank_id, fact_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX entity_refs_entity ON entity_refs(bank_id, entity_id, seq);

CREATE TABLE cooccurrences (
    bank_id  TEXT NOT NULL,
    entity_a TEXT NOT NULL,
    entity_b TEXT NOT NULL,
    count    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bank_id, entity_a, entity_b)
) WITHOUT ROWID;

CREATE TABLE relations (
    bank_id    TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    predicate  TEXT NOT NULL,
    object_id  TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 1,
    fact_ids   TEXT NOT NULL DEFAULT '[]',
    valid_from INTEGER,
    valid_to   INTEGER,
    created_at INTEGER NOT NULL,
    expired_at INTEGER,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX relations_subject ON relations(bank_id, subject_id, predicate);
CREATE INDEX relations_object ON relations(bank_id, object_id);

CREATE TABLE links (
    bank_id   TEXT NOT NULL,
    from_id   TEXT NOT NULL,
    to_id     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    entity_id TEXT NOT NULL DEFAULT '',
    weight    REAL NOT NULL DEFAULT 1,
    PRIMARY KEY (bank_id, from_id, kind, to_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX links_to ON links(bank_id, to_id);

CREATE TABLE observations (
    pk              INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_id         TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id              TEXT NOT NULL,
    text            TEXT NOT NULL,
    kind            TEXT NOT NULL DEFAULT 'pattern',
    source_fact_ids TEXT NOT NULL DEFAULT '[]',
    evidence_count  INTEGER NOT NULL DEFAULT 0,
    history         TEXT NOT NULL DEFAULT '[]',
    embedding       BLOB,
    status          TEXT NOT NULL DEFAULT 'active',
    access_count    INTEGER NOT NULL DEFAULT 0,
    last_accessed   INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    UNIQUE (bank_id, id)
);

CREATE VIRTUAL TABLE observations_fts USING fts5(
    bank, body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'
);

CREATE TABLE dreams (
    bank_id         TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id              TEXT NOT NULL,
    bridge          TEXT NOT NULL,
    insight         TEXT NOT NULL,
    source_fact_ids TEXT NOT NULL DEFAULT '[]',
    embedding       BLOB,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (bank_id, id)
);

CREATE TABLE blocks (
    bank_id    TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    text       TEXT NOT NULL DEFAULT '',
    max_chars  INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (bank_id, name)
);

CREATE TABLE watermarks (
    bank_id    TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    source     TEXT NOT NULL,
    last_item  TEXT NOT NULL DEFAULT '',
    last_error TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (bank_id, source)
);

CREATE TABLE runs (
    bank_id     TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    kind        TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    counts      TEXT NOT NULL DEFAULT '{}',
    error       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (bank_id, id)
);

-- mnemo PostgreSQL schema v1: the data model of DESIGN §3, the same as
-- store/sqlite's 001 and 002.
--
-- Every table but banks (the directory of banks, keyed by the bank id
-- itself) is keyed by bank_id first, and every index starts with bank_id:
-- no read or write crosses banks, and bank_id is the distribution column
-- of a sharded (Citus) deployment (docs/postgres.md). The per-bank HNSW
-- indexes the store builds later are partial indexes WHERE bank_id = '…'.
-- Ids are COLLATE "C": they order bytewise, as in SQLite.
-- Times are timestamptz (microseconds); NULL is "unknown" or "open".

CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE banks (
    id         text COLLATE "C" PRIMARY KEY,
    name       text COLLATE "C" NOT NULL UNIQUE,
    settings   jsonb NOT NULL DEFAULT '{}',
    embedder   text NOT NULL DEFAULT '',
    dimension  integer NOT NULL DEFAULT 0,
    -- version counts writes that change facts; next_seq is the next fact's
    -- ingestion order. Both change only under the bank's write lock.
    version    bigint NOT NULL DEFAULT 0,
    next_seq   bigint NOT NULL DEFAULT 1,
    -- BM25 statistics of the bank: how many facts, how many words in all.
    fact_count bigint NOT NULL DEFAULT 0,
    fact_words bigint NOT NULL DEFAULT 0,
    -- The dimension of the bank's HNSW index once it is built (0: none
    -- yet, vector search scans exactly).
    hnsw_dim   integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL
);

CREATE TABLE documents (
    bank_id      text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id           text COLLATE "C" NOT NULL,
    source       text COLLATE "C" NOT NULL,
    item_id      text COLLATE "C" NOT NULL,
    content_hash text NOT NULL,
    content      text NOT NULL,
    metadata     jsonb NOT NULL DEFAULT '{}',
    tags         text[] NOT NULL DEFAULT '{}',
    occurred_at  timestamptz,
    created_at   timestamptz,
    PRIMARY KEY (bank_id, id),
    UNIQUE (bank_id, source, item_id)
);

CREATE TABLE chunks (
    bank_id     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    document_id text COLLATE "C" NOT NULL,
    idx         integer NOT NULL,
    text        text NOT NULL,
    PRIMARY KEY (bank_id, id),
    FOREIGN KEY (bank_id, document_id) REFERENCES documents(bank_id, id) ON DELETE CASCADE
);
CREATE INDEX chunks_document ON chunks (bank_id, document_id, idx);

-- The number of words of a text search vector (every position of every
-- lexeme: stopwords are not counted), BM25's document length.
CREATE FUNCTION mnemo_tsvector_words(tsvector) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT coalesce(sum(cardinality(positions)), 0)::integer FROM unnest($1) $$;

-- A tsquery matching any of several lexemes. Each lexeme is quoted (quotes and backslashes escaped), so nothing in it is
-- read as query syntax: user text never reaches to_tsquery.
CREATE FUNCTION mnemo_lexemes_query(text[]) RETURNS tsquery
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT string_agg('''' || replace(replace(l, '\', '\\'), '''', '''''') || '''', ' | ')::tsquery FROM unnest($1) AS l $$;

-- embedding is an untyped vector: banks differ in dimension. The store
-- checks that a bank's vectors all have the bank's dimension, and the
-- bank's HNSW index casts to it (hnsw.go).
CREATE TABLE facts (
    bank_id             text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id                  text COLLATE "C" NOT NULL,
    seq                 bigint NOT NULL,
    document_id         text COLLATE "C" NOT NULL DEFAULT '',
    chunk_id            text NOT NULL DEFAULT '',
    source_ref          text NOT NULL DEFAULT '',
    text                text NOT NULL,
    kind                text NOT NULL DEFAULT 'world',
    category            text NOT NULL DEFAULT '',
    confidence          double precision NOT NULL DEFAULT 1,
    importance          double precision NOT NULL DEFAULT 0.5,
    sensitivity         text NOT NULL DEFAULT 'open',
    speaker             text NOT NULL DEFAULT '',
    evidence            text NOT NULL DEFAULT '',
    tags                text[] NOT NULL DEFAULT '{}',
    embedding           vector,
    occurred_start      timestamptz,
    occurred_end        timestamptz,
    mentioned_at        timestamptz,
    valid_from          timestamptz,
    valid_to            timestamptz,
    created_at          timestamptz,
    expired_at          timestamptz,
    event_time          timestamptz, -- occurred_start, else mentioned_at, else created_at
    access_count        integer NOT NULL DEFAULT 0,
    last_accessed       timestamptz,
    reinforcement_count integer NOT NULL DEFAULT 0,
    decay_score         double precision NOT NULL DEFAULT 1,
    status              text NOT NULL DEFAULT 'active',
    superseded_by       text COLLATE "C" NOT NULL DEFAULT '',
    consolidated_at     timestamptz,
    expires_at          timestamptz,
    -- Full text over speaker and text, English configuration (Snowball
    -- stemmer, English stopwords), and its length in words for BM25. The
    -- CASE spells the fact's body as memory.Body does in Go
    -- (TestStore_SearchBodyIsMemoryBody checks that they agree).
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig,
        CASE WHEN speaker = '' THEN text ELSE speaker || ': ' || text END)) STORED,
    words integer GENERATED ALWAYS AS (mnemo_tsvector_words(to_tsvector('english'::regconfig,
        CASE WHEN speaker = '' THEN text ELSE speaker || ': ' || text END))) STORED,
    PRIMARY KEY (bank_id, id)
);
-- Vectors stay in the row (MAIN, not pgvector's default EXTERNAL, and
-- no toasting below a page): an exact scan then reads them with the row
-- instead of one TOAST lookup per fact. Only a row too large for a page
-- still moves its vector out of line.
ALTER TABLE facts ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE facts SET (toast_tuple_target = 8160);
CREATE INDEX facts_document ON facts (bank_id, document_id, seq);
CREATE INDEX facts_event_time ON facts (bank_id, event_time);
CREATE INDEX facts_superseded_by ON facts (bank_id, superseded_by) WHERE superseded_by <> '';
-- GIN over (bank_id, tsv) (bank_id through btree_gin): a match is confined
-- to its bank inside the index.
CREATE INDEX facts_tsv ON facts USING gin (bank_id, tsv);

-- BM25's document frequencies: in how many of the bank's facts each
-- lexeme occurs, kept by every write (a count on the GIN index would
-- visit every matching row: 0.8 s for a common word at 100k facts).
CREATE TABLE lexemes (
    bank_id text COLLATE "C" NOT NULL,
    lexeme  text COLLATE "C" NOT NULL,
    df      integer NOT NULL,
    PRIMARY KEY (bank_id, lexeme)
);

CREATE TABLE entities (
    bank_id       text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id            text COLLATE "C" NOT NULL,
    name          text NOT NULL,
    type          text COLLATE "C" NOT NULL,
    first_seen    timestamptz,
    last_seen     timestamptz,
    mention_count integer NOT NULL DEFAULT 0,
    episode_count integer NOT NULL DEFAULT 0,
    salience      double precision NOT NULL DEFAULT 1,
    tier          text NOT NULL DEFAULT 'L0',
    contradicted  boolean NOT NULL DEFAULT false,
    embedding     vector,
    PRIMARY KEY (bank_id, id)
);
ALTER TABLE entities ALTER COLUMN embedding SET STORAGE MAIN;
CREATE INDEX entities_type ON entities (bank_id, type);

-- Every name an entity is known by, normalised; the canonical name too.
CREATE TABLE entity_aliases (
    bank_id   text COLLATE "C" NOT NULL,
    norm      text COLLATE "C" NOT NULL,
    entity_id text COLLATE "C" NOT NULL,
    alias     text COLLATE "C" NOT NULL,
    PRIMARY KEY (bank_id, norm, entity_id)
);
CREATE INDEX entity_aliases_entity ON entity_aliases (bank_id, entity_id);

CREATE TABLE entity_refs (
    bank_id   text COLLATE "C" NOT NULL,
    fact_id   text COLLATE "C" NOT NULL,
    entity_id text COLLATE "C" NOT NULL,
    seq       bigint NOT NULL,
    PRIMARY KEY (bank_id, fact_id, entity_id)
);
CREATE INDEX entity_refs_entity ON entity_refs (bank_id, entity_id, seq);

CREATE TABLE cooccurrences (
    bank_id  text COLLATE "C" NOT NULL,
    entity_a text COLLATE "C" NOT NULL,
    entity_b text COLLATE "C" NOT NULL,
    count    integer NOT NULL DEFAULT 0,
    PRIMARY KEY (bank_id, entity_a, entity_b)
);

CREATE TABLE relations (
    bank_id    text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         text COLLATE "C" NOT NULL,
    subject_id text COLLATE "C" NOT NULL,
    predicate  text COLLATE "C" NOT NULL,
    object_id  text COLLATE "C" NOT NULL,
    confidence double precision NOT NULL DEFAULT 1,
    fact_ids   text[] NOT NULL DEFAULT '{}',
    valid_from timestamptz,
    valid_to   timestamptz,
    created_at timestamptz NOT NULL,
    expired_at timestamptz,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX relations_subject ON relations (bank_id, subject_id, predicate);
CREATE INDEX relations_object ON relations (bank_id, object_id);

CREATE TABLE links (
    bank_id   text COLLATE "C" NOT NULL,
    from_id   text COLLATE "C" NOT NULL,
    to_id     text COLLATE "C" NOT NULL,
    kind      text COLLATE "C" NOT NULL,
    entity_id text COLLATE "C" NOT NULL DEFAULT '',
    weight    double precision NOT NULL DEFAULT 1,
    PRIMARY KEY (bank_id, from_id, kind, to_id, entity_id)
);
CREATE INDEX links_to ON links (bank_id, to_id);

CREATE TABLE observations (
    bank_id         text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id              text COLLATE "C" NOT NULL,
    text            text NOT NULL,
    kind            text NOT NULL DEFAULT 'pattern',
    source_fact_ids text[] NOT NULL DEFAULT '{}',
    evidence_count  integer NOT NULL DEFAULT 0,
    history         jsonb NOT NULL DEFAULT '[]',
    embedding       vector,
    status          text NOT NULL DEFAULT 'active',
    access_count    integer NOT NULL DEFAULT 0,
    last_accessed   timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED,
    PRIMARY KEY (bank_id, id)
);
CREATE INDEX observations_tsv ON observations USING gin (bank_id, tsv);

CREATE TABLE dreams (
    bank_id         text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id              text COLLATE "C" NOT NULL,
    bridge          text NOT NULL,
    insight         text NOT NULL,
    source_fact_ids text[] NOT NULL DEFAULT '{}',
    embedding       vector,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (bank_id, id)
);

CREATE TABLE blocks (
    bank_id    text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    name       text COLLATE "C" NOT NULL,
    text       text NOT NULL DEFAULT '',
    max_chars  integer NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (bank_id, name)
);

CREATE TABLE watermarks (
    bank_id    text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    source     text COLLATE "C" NOT NULL,
    last_item  text NOT NULL DEFAULT '',
    last_error text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (bank_id, source)
);

CREATE TABLE runs (
    bank_id     text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id          text COLLATE "C" NOT NULL,
    kind        text NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz,
    counts      jsonb NOT NULL DEFAULT '{}',
    error       text NOT NULL DEFAULT '',
    PRIMARY KEY (bank_id, id)
);

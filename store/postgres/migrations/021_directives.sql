-- Directives: must-follow memories, in a table of their own so that no
-- pass over facts (decay, archival, merge, consolidation) touches them.
-- scopes is sorted, empty for everywhere.
CREATE TABLE directives (
    bank_id    text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         text COLLATE "C" NOT NULL,
    text       text NOT NULL,
    scopes     text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (bank_id, id)
);

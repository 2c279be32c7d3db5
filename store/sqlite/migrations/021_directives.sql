-- Directives: must-follow memories, in a table of their own so that no
-- pass over facts (decay, archival, merge, consolidation) touches them.
-- scopes is a JSON array of strings, sorted, '[]' for everywhere. Times
-- are microseconds since the epoch.
CREATE TABLE directives (
    bank_id    TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    text       TEXT NOT NULL,
    scopes     TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (bank_id, id)
);

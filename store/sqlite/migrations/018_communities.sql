-- Entity communities (memory.Communities): seed 004's clusters of
-- entities, found by the communities pass of consolidation on the entity
-- graph. Derived data: the pass finds them again from the graph, so they
-- are not exported.
--
-- communities: one row per community; members is a JSON list of
-- {"entity_id", "weight"} heaviest first, representatives and sources
-- JSON lists of ids. size is the number of members, for the listing's
-- order. Times are microseconds since the epoch.
--
-- community_marks: per bank, the mark of the entity graph the stored
-- communities were found on (memory.GraphMark), so that a pass over an
-- unchanged graph does nothing.
CREATE TABLE communities (
    bank_id         TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id              TEXT NOT NULL,
    name            TEXT NOT NULL DEFAULT '',
    members         TEXT NOT NULL DEFAULT '[]',
    size            INTEGER NOT NULL,
    representatives TEXT NOT NULL DEFAULT '[]',
    summary         TEXT NOT NULL DEFAULT '',
    sources         TEXT NOT NULL DEFAULT '[]',
    weight          REAL NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    summarized_at   INTEGER,
    PRIMARY KEY (bank_id, id)
);

CREATE TABLE community_marks (
    bank_id   TEXT NOT NULL PRIMARY KEY REFERENCES banks(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    refs      INTEGER NOT NULL,
    pairs     INTEGER NOT NULL,
    weight    INTEGER NOT NULL,
    relations INTEGER NOT NULL,
    open      INTEGER NOT NULL
);

-- Entity communities (memory.Communities): seed 004's clusters of
-- entities, found by the communities pass of consolidation on the entity
-- graph. Derived data: the pass finds them again from the graph, so they
-- are not exported.
--
-- communities: one row per community; members is a JSON list of
-- {"entity_id", "weight"} heaviest first (kept as text, so that weights
-- read back exactly as written), representatives and sources lists of
-- ids. size is the number of members, for the listing's order.
--
-- community_marks: per bank, the mark of the entity graph the stored
-- communities were found on (memory.GraphMark), so that a pass over an
-- unchanged graph does nothing.
CREATE TABLE communities (
    bank_id         text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    id              text COLLATE "C" NOT NULL,
    name            text NOT NULL DEFAULT '',
    members         text NOT NULL DEFAULT '[]',
    size            integer NOT NULL,
    representatives text[] NOT NULL DEFAULT '{}',
    summary         text NOT NULL DEFAULT '',
    sources         text[] NOT NULL DEFAULT '{}',
    weight          double precision NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    summarized_at   timestamptz,
    PRIMARY KEY (bank_id, id)
);

CREATE TABLE community_marks (
    bank_id   text COLLATE "C" NOT NULL PRIMARY KEY REFERENCES banks(id) ON DELETE CASCADE,
    seq       bigint NOT NULL,
    refs      bigint NOT NULL,
    pairs     bigint NOT NULL,
    weight    bigint NOT NULL,
    relations bigint NOT NULL,
    open      bigint NOT NULL
);

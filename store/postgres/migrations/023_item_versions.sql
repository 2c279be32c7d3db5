-- The earlier versions of an item: a new version supersedes the old
-- version's facts and removes its document row; this table remembers
-- which document ids the item had, so that forgetting the item reaches
-- every version's facts.
CREATE TABLE item_versions (
    bank_id       text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    source        text COLLATE "C" NOT NULL,
    item_id       text COLLATE "C" NOT NULL,
    document_id   text COLLATE "C" NOT NULL,
    superseded_at timestamptz,
    PRIMARY KEY (bank_id, source, item_id, document_id)
);

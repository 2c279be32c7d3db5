-- mnemo schema: the earlier versions of an item. A new version of an
-- item (same source and item id, new content) supersedes the old
-- version's facts and removes its document row; this table remembers
-- which document ids the item had, so that forgetting the item (forget
-- --source S --item I) reaches every version's facts.
CREATE TABLE item_versions (
    bank_id       TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    source        TEXT NOT NULL,
    item_id       TEXT NOT NULL,
    document_id   TEXT NOT NULL,
    superseded_at INTEGER,
    PRIMARY KEY (bank_id, source, item_id, document_id)
);

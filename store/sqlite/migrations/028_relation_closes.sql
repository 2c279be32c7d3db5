-- mnemo schema: one row per relation a newer relation closed (retain's
-- supersession of an edge: "lives in Paris" closed by "lives in Lyon").
-- The primary key is the lock that keeps one current edge: two writers
-- that both saw the old edge current and both close it cannot both
-- commit; the second fails (memory.ErrRelationClosed) and retain
-- resolves its item again against the edge that replaced it. Rows go
-- with either relation (forget).
CREATE TABLE relation_closes (
    bank_id   TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    closed_id TEXT NOT NULL,
    by_id     TEXT NOT NULL,
    closed_at INTEGER NOT NULL,
    PRIMARY KEY (bank_id, closed_id),
    FOREIGN KEY (bank_id, closed_id) REFERENCES relations(bank_id, id) ON DELETE CASCADE,
    FOREIGN KEY (bank_id, by_id) REFERENCES relations(bank_id, id) ON DELETE CASCADE
);
CREATE INDEX relation_closes_by ON relation_closes(bank_id, by_id);

-- One row per relation a newer relation closed (retain's supersession of
-- an edge). The primary key is the lock that keeps one current edge: two
-- writers that both saw the old edge current and both close it cannot
-- both commit; the second fails (memory.ErrRelationClosed) and retain
-- resolves its item again. Rows go with either relation (forget).
CREATE TABLE relation_closes (
    bank_id   text COLLATE "C" NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
    closed_id text COLLATE "C" NOT NULL,
    by_id     text COLLATE "C" NOT NULL,
    closed_at timestamptz NOT NULL,
    PRIMARY KEY (bank_id, closed_id),
    FOREIGN KEY (bank_id, closed_id) REFERENCES relations(bank_id, id) ON DELETE CASCADE,
    FOREIGN KEY (bank_id, by_id) REFERENCES relations(bank_id, id) ON DELETE CASCADE
);
CREATE INDEX relation_closes_by ON relation_closes (bank_id, by_id);

-- Every write transaction leaves a mark (a random token) in write_marks.
-- After a COMMIT that reports an error (a full disk, an I/O error), the
-- writer reads its token back: found, the transaction is durable and is
-- reported as stored; not found, it is reported as failed. Only the
-- newest marks are kept (store.go, Store.write).
CREATE TABLE write_marks (
    id    INTEGER PRIMARY KEY,
    token TEXT NOT NULL UNIQUE
);

-- Memory blocks: a label and usage tracking (reads, writes, the last
-- read) beside the text and limit of 001's table. Times are microseconds
-- since the epoch; last_read_at is NULL until the first read.
ALTER TABLE blocks ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE blocks ADD COLUMN reads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN writes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN last_read_at INTEGER;
ALTER TABLE blocks ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;

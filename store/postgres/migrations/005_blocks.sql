-- Memory blocks: a label and usage tracking (reads, writes, the last
-- read) beside the text and limit of 001's table; last_read_at is NULL
-- until the first read. A block stored before this migration was created
-- no later than its last update.
ALTER TABLE blocks ADD COLUMN label text NOT NULL DEFAULT '';
ALTER TABLE blocks ADD COLUMN reads integer NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN writes integer NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN last_read_at timestamptz;
ALTER TABLE blocks ADD COLUMN created_at timestamptz;
UPDATE blocks SET created_at = updated_at;
ALTER TABLE blocks ALTER COLUMN created_at SET NOT NULL;

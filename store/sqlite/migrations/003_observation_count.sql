-- mnemo schema v3: banks count their active observations, so recall's
-- first phase costs one lookup on a bank that has none.
ALTER TABLE banks ADD COLUMN observations INTEGER NOT NULL DEFAULT 0;

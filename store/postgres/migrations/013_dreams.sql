-- Dreams (001's table): the dream pass lists a bank's latest dreams to
-- compare new ones with (seed 000: "the 100 most recent dreams"), and
-- `mnemo dreams` lists them newest first; this index serves both.
CREATE INDEX dreams_created ON dreams (bank_id, created_at, id);

-- Short-term memory (seed 002): a fact with an expires_at is short-term
-- (001's column, microseconds since the epoch). The expire pass walks
-- the bank's short-term facts whose time is up (expires_at <= now);
-- this index finds them without reading the long-term facts, which
-- have no expires_at and stay out of it.
CREATE INDEX facts_expires ON facts(bank_id, expires_at) WHERE expires_at IS NOT NULL;

-- mnemo PostgreSQL schema: API keys (the same as store/sqlite's 007).
-- Keys live beside the banks, not in them: like banks, a directory keyed
-- by its own id (no bank_id: a key names a bank, or '*' for every bank,
-- and outlives a deleted bank as a revoked row), and no export holds
-- them. Only the SHA-256 of a key's secret is kept (hex); lookups go by it.
CREATE TABLE api_keys (
    id         text COLLATE "C" PRIMARY KEY,
    hash       text COLLATE "C" NOT NULL UNIQUE,
    bank       text COLLATE "C" NOT NULL,
    scope      text NOT NULL,
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    expires_at timestamptz,
    revoked_at timestamptz
);
CREATE INDEX api_keys_bank ON api_keys (bank, created_at, id);

-- mnemo schema: API keys. Keys live beside the banks, not in them: no
-- foreign key to banks (a key names a bank, or '*' for every bank, and
-- outlives a deleted bank as a revoked row), and no export holds them.
-- Only the SHA-256 of a key's secret is kept (hex); lookups go by it.
CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,
    bank       TEXT NOT NULL,
    scope      TEXT NOT NULL,
    name       TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    revoked_at INTEGER
);
CREATE INDEX api_keys_bank ON api_keys(bank, created_at, id);

-- A bank's facts by status: Stats counts the active, superseded and
-- archived facts of a bank (the banks page of the web console, GET
-- /v1/banks/{bank}/stats) from this index instead of reading every fact
-- row (300 ms → 7 ms on 100,000 facts).
CREATE INDEX facts_bank_status ON facts(bank_id, status);

-- Requests sent with an Idempotency-Key (gateway/idempotency.py), per organization and caller
-- (an API key, or a user whatever token or session it signs in with). A row is claimed before the
-- request runs (`status` NULL until its answer is stored); a claim that outlived `claimed_until`
-- without an answer (a gateway that died mid-request) may be taken again. Rows are kept 24 hours.
CREATE TABLE idempotency_keys (
    organization_id uuid NOT NULL,
    caller text NOT NULL,
    key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    fingerprint bytea NOT NULL,
    claim uuid NOT NULL,
    claimed_until timestamptz NOT NULL,
    status smallint,
    headers jsonb,
    body bytea,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (organization_id, caller, key)
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);

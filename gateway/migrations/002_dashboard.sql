-- Dashboard: password sign-in, scheduled key revocation and each key's history.

-- argon2id, in the PHC string format argon2-cffi writes; NULL: the user cannot sign in with a password.
ALTER TABLE users ADD COLUMN password_hash text CHECK (password_hash LIKE '$argon2id$%');

-- `revoked_at` may now lie in the future: the old key of a rotation keeps working until then.
-- Gateways refuse a key from its `revoked_at` on, and their revocation poll drops it from
-- every cache once that moment has passed.
COMMENT ON COLUMN api_keys.revoked_at IS 'from when the key is refused; may be in the future (grace period)';

CREATE TABLE api_key_events (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    api_key_id      uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    -- Who: a user of the dashboard, or NULL for the operator's command line; `actor` keeps the
    -- email (or "operator") as it was, so the history still reads after the user is gone.
    actor_user_id   uuid REFERENCES users (id) ON DELETE SET NULL,
    actor           text NOT NULL CHECK (length(actor) BETWEEN 1 AND 320),
    action          text NOT NULL CHECK (action IN ('created', 'revoked', 'rotated')),
    -- What else: the scopes a key was created with, the key that replaced it and when it stops working.
    details         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
    at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_key_events_key_idx ON api_key_events (api_key_id, at);

-- OAuth: device authorizations (RFC 8628) and refresh-token families, owned by the gateway.
-- Every time here is written by the gateway's clock, never now(), so one clock decides expiry.

CREATE TABLE device_authorizations (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- SHA-256 of the device code, hex. The code itself is given to the client once.
    device_code_hash text NOT NULL UNIQUE CHECK (device_code_hash ~ '^[0-9a-f]{64}$'),
    -- Eight characters of the user-code alphabet, stored without the hyphen people see.
    user_code        text NOT NULL UNIQUE CHECK (user_code ~ '^[BCDFGHJKLMNPQRSTVWXZ]{8}$'),
    client_id        text NOT NULL,
    requested_scopes text[] NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'redeemed')),
    -- Seconds a client must wait between polls; grows by 5 with every slow_down.
    poll_interval    integer NOT NULL CHECK (poll_interval > 0),
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    last_polled_at   timestamptz NOT NULL,
    -- Who decided, for which organization, and what was granted.
    user_id          uuid REFERENCES users (id) ON DELETE CASCADE,
    organization_id  uuid REFERENCES organizations (id) ON DELETE CASCADE,
    granted_scopes   text[],
    decided_at       timestamptz,
    CHECK ((status = 'pending') = (decided_at IS NULL)),
    CHECK (status NOT IN ('approved', 'redeemed') OR (organization_id IS NOT NULL AND granted_scopes IS NOT NULL))
);
-- Old authorizations are deleted a day after they expire, when new ones are issued.
CREATE INDEX device_authorizations_expires_idx ON device_authorizations (expires_at);

-- A grant is one approval: the family of refresh tokens that descend from it.
CREATE TABLE oauth_grants (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    client_id       text NOT NULL,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    scopes          text[] NOT NULL,
    created_at      timestamptz NOT NULL,
    revoked_at      timestamptz,
    revoked_reason  text CHECK (revoked_reason IN ('revoked', 'reused', 'membership')),
    CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL))
);
CREATE INDEX oauth_grants_member_idx ON oauth_grants (user_id, organization_id);

CREATE TABLE refresh_tokens (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    grant_id   uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    -- SHA-256 of the token, hex. A token is used once: the refresh that spends it sets used_at.
    token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_grant_idx ON refresh_tokens (grant_id);

-- AI traffic: requests of AI agents to an organization's Apps, and humans they referred.
-- organization_id, app_id and domain_id refer to other parts' records: plain columns, no foreign keys.

-- The raw events, one partition a UTC day (events_YYYYMMDD), created ahead and dropped past the
-- retention by the service itself (services/traffic/partitions.py).
CREATE TABLE events (
    uid               uuid NOT NULL DEFAULT gen_random_uuid(),
    organization_id   uuid NOT NULL,
    id                text NOT NULL,
    occurred_at       timestamptz NOT NULL,
    received_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    source            text NOT NULL CHECK (source IN ('ingest', 'edge')),
    app_id            uuid NOT NULL,
    domain_id         uuid NOT NULL,
    host              text NOT NULL,
    path              text NOT NULL,
    method            text NOT NULL,
    status            smallint NOT NULL,
    user_agent        text NOT NULL,
    -- The client's address truncated to its /24 (IPv4) or /48 (IPv6): never the whole address.
    client_network    cidr NOT NULL,
    referer           text,
    bytes             bigint,
    duration_ms       double precision,
    kind              text NOT NULL CHECK (kind IN ('agent', 'referral')),
    -- The agent the request is counted as (NULL for a referral, or a claim found spoofed).
    bot_id            text,
    claimed_bot_id    text,
    operator          text,
    category          text,
    verified          boolean NOT NULL,
    matched_by        text CHECK (matched_by IN ('ua', 'ip', 'rdns', 'signature')),
    spoofed           boolean NOT NULL,
    referral_platform text
) PARTITION BY RANGE (occurred_at);
CREATE INDEX events_page_idx ON events (organization_id, occurred_at DESC, uid DESC);

-- Idempotency: the ids an organization sent, remembered 8 days, longer than an event may be late
-- (7 days), so a batch sent twice stores nothing twice.
CREATE TABLE event_keys (
    organization_id uuid NOT NULL,
    id              text NOT NULL,
    received_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX event_keys_received_idx ON event_keys (received_at);

-- Hourly rollups, added to by the write that stores the events; summaries read only these.
-- Absent dimensions are '' rather than NULL, so they can be part of the key.
CREATE TABLE agent_hourly (
    organization_id uuid NOT NULL,
    app_id          uuid NOT NULL,
    hour            timestamptz NOT NULL,
    bot_id          text NOT NULL,
    operator        text NOT NULL,
    category        text NOT NULL,
    status_class    text NOT NULL,
    verified        boolean NOT NULL,
    spoofed         boolean NOT NULL,
    visits          bigint NOT NULL,
    bytes           bigint NOT NULL,
    PRIMARY KEY (organization_id, app_id, hour, bot_id, operator, category, status_class, verified, spoofed)
);
CREATE INDEX agent_hourly_organization_idx ON agent_hourly (organization_id, hour);

CREATE TABLE path_hourly (
    organization_id uuid NOT NULL,
    app_id          uuid NOT NULL,
    hour            timestamptz NOT NULL,
    path            text NOT NULL,
    status_class    text NOT NULL,
    verified        boolean NOT NULL,
    visits          bigint NOT NULL,
    bytes           bigint NOT NULL,
    PRIMARY KEY (organization_id, app_id, hour, path, status_class, verified)
);
CREATE INDEX path_hourly_organization_idx ON path_hourly (organization_id, hour);

CREATE TABLE referral_hourly (
    organization_id uuid NOT NULL,
    app_id          uuid NOT NULL,
    hour            timestamptz NOT NULL,
    platform        text NOT NULL,
    visits          bigint NOT NULL,
    PRIMARY KEY (organization_id, app_id, hour, platform)
);
CREATE INDEX referral_hourly_organization_idx ON referral_hourly (organization_id, hour);

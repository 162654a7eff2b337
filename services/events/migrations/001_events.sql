-- Webhook endpoints, the events they are sent, each delivery and its attempts, and the audit
-- trail of every organization. organization_id refers to the gateway's records: a plain column.

CREATE TABLE webhook_endpoints (
    id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id             uuid NOT NULL,
    url                         text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    -- Event types, or '{*}' for every type.
    events                      text[] NOT NULL CHECK (cardinality(events) >= 1),
    description                 text CHECK (length(description) <= 500),
    enabled                     boolean NOT NULL DEFAULT true,
    -- Why it was disabled when the platform disabled it (failing for days); NULL when a person did.
    disabled_reason             text,
    secret                      text NOT NULL,
    -- After a rotation the old secret signs beside the new one until previous_secret_expires_at.
    previous_secret             text,
    previous_secret_expires_at  timestamptz,
    -- The first failure of the current run of failures; NULL after a success.
    failing_since               timestamptz,
    created_at                  timestamptz NOT NULL DEFAULT now(),
    updated_at                  timestamptz NOT NULL DEFAULT now(),
    deleted_at                  timestamptz
);
CREATE INDEX webhook_endpoints_organization_idx ON webhook_endpoints (organization_id, created_at, id)
    WHERE deleted_at IS NULL;

-- Every event received from a part's stream, once (a replayed entry has the same id).
CREATE TABLE events (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    type            text NOT NULL,
    -- What the event is about ("content.document:<id>"): deliveries keep the order per resource.
    resource_key    text NOT NULL,
    payload         jsonb NOT NULL,
    received_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_received_idx ON events (received_at);

CREATE TABLE deliveries (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- The order deliveries of one resource to one endpoint go out in.
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL,
    event_id        uuid NOT NULL,
    event_type      text NOT NULL,
    resource_key    text NOT NULL,
    payload         jsonb NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_resource_idx ON deliveries (endpoint_id, resource_key, seq) WHERE status = 'pending';
CREATE INDEX deliveries_listing_idx ON deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE delivery_attempts (
    delivery_id   uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    number        integer NOT NULL,
    attempted_at  timestamptz NOT NULL,
    -- NULL when no answer came (a timeout, a refused connection, a refused address).
    status_code   integer,
    latency_ms    integer NOT NULL,
    -- The first 1 KB of the answer, or what went wrong.
    response      text NOT NULL DEFAULT '',
    error         text,
    PRIMARY KEY (delivery_id, number)
);

CREATE TABLE audit_events (
    id              uuid PRIMARY KEY,
    -- NULL when the request named no organization it could be tied to (an unknown key).
    organization_id uuid,
    occurred_at     timestamptz NOT NULL,
    -- "api_key", "bearer", "session", "operator" or "anonymous"; the user id or key prefix.
    actor_kind      text NOT NULL,
    actor_id        text,
    actor_label     text,
    action          text NOT NULL,
    resource_type   text,
    resource_id     text,
    method          text,
    path            text,
    client_address  text,
    request_id      text,
    status          integer,
    result          text NOT NULL CHECK (result IN ('success', 'failure'))
);
CREATE INDEX audit_events_organization_idx ON audit_events (organization_id, occurred_at DESC, id DESC);
CREATE INDEX audit_events_occurred_idx ON audit_events (occurred_at);

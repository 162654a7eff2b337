-- The organization's products as the apps service knows them: a copy kept from the gateway's
-- product events (<REDIS_PREFIX>events:identity), so naming a product never calls the gateway.
-- `version` is the event's; a copy only ever moves to a newer one. A product first learnt from
-- a request the gateway checked, before its event arrived, has version 0.

CREATE TABLE products (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    name            text NOT NULL,
    slug            text NOT NULL,
    deleted_at      timestamptz,
    version         bigint NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Domains: hostnames an organization serves content on, attached to an app (scope 'app') or,
-- for the legacy routing feature, to a product (scope 'product').

CREATE TABLE domains (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    scope           text NOT NULL CHECK (scope IN ('app', 'product')),
    app_id          uuid,
    product_id      uuid,
    domain          text NOT NULL CHECK (length(domain) BETWEEN 1 AND 253 AND domain = lower(domain)),
    type            text NOT NULL DEFAULT 'web' CHECK (type IN ('web', 'metric', 'redirect')),
    origin          text CHECK (length(origin) BETWEEN 1 AND 2048),
    provider_id     text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    deleted_at      timestamptz,
    CHECK ((scope = 'app' AND app_id IS NOT NULL AND product_id IS NULL)
        OR (scope = 'product' AND product_id IS NOT NULL AND app_id IS NULL))
);
-- One hostname is live in one place across every organization: nobody can claim another's.
CREATE UNIQUE INDEX domains_live_hostname_key ON domains (domain) WHERE deleted_at IS NULL;
CREATE INDEX domains_organization_idx ON domains (organization_id) WHERE deleted_at IS NULL;
CREATE INDEX domains_app_idx ON domains (app_id) WHERE deleted_at IS NULL;

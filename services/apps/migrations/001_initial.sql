-- Apps and everything they own: config, resources, domains, routes; and the legacy routing
-- configs of product-scoped domains. organization_id and product_id refer to the gateway's
-- identity schema: plain columns, no foreign key crosses schemas.

CREATE TABLE apps (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    slug            text NOT NULL CHECK (length(slug) BETWEEN 1 AND 120),
    metadata        jsonb,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at      timestamptz
);
-- A slug names one live app of an organization; the index decides between concurrent writers.
CREATE UNIQUE INDEX apps_live_slug_key ON apps (organization_id, slug) WHERE deleted_at IS NULL;
CREATE INDEX apps_organization_idx ON apps (organization_id, created_at, id) WHERE deleted_at IS NULL;

CREATE TABLE app_configs (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id          uuid NOT NULL REFERENCES apps (id),
    organization_id uuid NOT NULL,
    -- The app's primary product: the first product added as a resource; NULL until then.
    product_id      uuid,
    config          jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config) = 'object'),
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at      timestamptz
);
CREATE UNIQUE INDEX app_configs_live_app_key ON app_configs (app_id) WHERE deleted_at IS NULL;

CREATE TABLE app_resources (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id          uuid NOT NULL REFERENCES apps (id),
    organization_id uuid NOT NULL,
    resource_type   text NOT NULL CHECK (resource_type IN ('product')),
    resource_id     uuid NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at      timestamptz
);
CREATE UNIQUE INDEX app_resources_live_key ON app_resources (app_id, resource_type, resource_id)
    WHERE deleted_at IS NULL;

-- Hostnames an organization serves content on, attached to an app (scope 'app') or, for the
-- legacy routing feature, to a product (scope 'product').
CREATE TABLE domains (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    scope           text NOT NULL CHECK (scope IN ('app', 'product')),
    app_id          uuid REFERENCES apps (id),
    product_id      uuid,
    domain          text NOT NULL CHECK (length(domain) BETWEEN 1 AND 253 AND domain = lower(domain)),
    type            text NOT NULL DEFAULT 'web' CHECK (type IN ('web', 'metric', 'redirect')),
    origin          text CHECK (length(origin) BETWEEN 1 AND 2048),
    -- Set in the same transaction as the insert, once the edge provider has registered the name.
    provider_id     text,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at      timestamptz,
    CHECK ((scope = 'app' AND app_id IS NOT NULL AND product_id IS NULL)
        OR (scope = 'product' AND product_id IS NOT NULL AND app_id IS NULL))
);
-- One hostname is live in one place across every organization: nobody can claim another's.
CREATE UNIQUE INDEX domains_live_hostname_key ON domains (domain) WHERE deleted_at IS NULL;
CREATE INDEX domains_organization_idx ON domains (organization_id) WHERE deleted_at IS NULL;
CREATE INDEX domains_app_idx ON domains (app_id, created_at) WHERE deleted_at IS NULL;

CREATE TABLE routes (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id          uuid NOT NULL REFERENCES apps (id),
    organization_id uuid NOT NULL,
    -- Always in the canonical form of libs.contract.validators.normalize_route_path.
    path            text NOT NULL CHECK (length(path) BETWEEN 1 AND 2048 AND left(path, 1) = '/'),
    target_type     text NOT NULL CHECK (target_type IN ('product_document')),
    target_id       uuid NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- One route per path in an app, decided by this index even between concurrent batches. A path
-- of 2048 multi-byte characters is larger than a btree entry may be, so the index holds its MD5;
-- queries compare md5(path) to use it.
CREATE UNIQUE INDEX routes_app_path_key ON routes (app_id, md5(path));
CREATE INDEX routes_app_target_idx ON routes (app_id, target_id);

-- The deprecated routing config of a product-scoped web domain. Publishing is retired: new
-- configs stay 'pending'; 'published' and 'failed' are kept for configs from before.
CREATE TABLE legacy_routing_configs (
    domain_id       uuid PRIMARY KEY REFERENCES domains (id),
    config          jsonb NOT NULL CHECK (jsonb_typeof(config) = 'object'),
    published_at    timestamptz,
    published_hash  text,
    publish_status  text NOT NULL DEFAULT 'pending' CHECK (publish_status IN ('pending', 'published', 'failed')),
    publish_error   text,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Whole resources: routes are soft-deleted like everything else of an app, and what an app's
-- delete marks (its config, resources, domains and routes: `deleted_with_app`) is told apart
-- from what was deleted on its own before, so a restore brings back exactly the first.
ALTER TABLE routes ADD COLUMN deleted_at timestamptz;
ALTER TABLE app_configs ADD COLUMN deleted_with_app boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT app_configs_deleted_with_app_check CHECK (NOT deleted_with_app OR deleted_at IS NOT NULL);
ALTER TABLE app_resources ADD COLUMN deleted_with_app boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT app_resources_deleted_with_app_check CHECK (NOT deleted_with_app OR deleted_at IS NOT NULL);
ALTER TABLE domains ADD COLUMN deleted_with_app boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT domains_deleted_with_app_check CHECK (NOT deleted_with_app OR deleted_at IS NOT NULL);
ALTER TABLE routes ADD COLUMN deleted_with_app boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT routes_deleted_with_app_check CHECK (NOT deleted_with_app OR deleted_at IS NOT NULL);

-- A path is taken by the app's live routes only (same name, so the code's constraint name holds).
DROP INDEX routes_app_canonical_path_key;
CREATE UNIQUE INDEX routes_app_canonical_path_key ON routes (app_id, md5(path_key)) WHERE deleted_at IS NULL;
-- The routes list: an app's live routes, oldest first, a page after a (created_at, id).
CREATE INDEX routes_app_listing_idx ON routes (app_id, created_at, id) WHERE deleted_at IS NULL;

-- A deleted app's hostnames stay its own until the purge removes it; a domain deleted on its own
-- frees its hostname at once.
DROP INDEX domains_live_hostname_key;
CREATE UNIQUE INDEX domains_live_hostname_key ON domains (domain) WHERE deleted_at IS NULL OR deleted_with_app;

-- The purge: deleted apps, oldest first.
CREATE INDEX apps_deleted_idx ON apps (deleted_at) WHERE deleted_at IS NOT NULL;

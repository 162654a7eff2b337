-- Withdrawn domains (docs/architecture.md, "Whole resources"): besides a released claim, a domain
-- deleted on its own and every domain of a purged app are announced to the content service, which
-- detaches them from documents. `release_announced_at` now says when any withdrawal was announced;
-- a domain deleted with its app is not withdrawn (a restore brings it back).
DROP INDEX domains_unannounced_idx;
CREATE INDEX domains_unannounced_idx ON domains (LEAST(released_at, deleted_at))
    WHERE (released_at IS NOT NULL OR (deleted_at IS NOT NULL AND NOT deleted_with_app))
        AND release_announced_at IS NULL;

-- The purge removes a domain's row; those not yet announced wait here until content has answered.
CREATE TABLE purged_domains (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    purged_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX purged_domains_purged_idx ON purged_domains (purged_at, id);

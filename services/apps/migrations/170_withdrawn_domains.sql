-- Withdrawn domains (docs/architecture.md, "Whole resources"): besides a released claim, a domain
-- deleted on its own and every domain of a purged app are announced to the content service, which
-- detaches them from documents (`POST /internal/domains/withdrawn`, formerly `.../released`).
-- `withdrawal_announced_at` (formerly `release_announced_at`) says when one was announced; a domain
-- deleted with its app is not withdrawn (a restore brings it back).
ALTER TABLE domains RENAME COLUMN release_announced_at TO withdrawal_announced_at;
DROP INDEX domains_unannounced_idx;
CREATE INDEX domains_unannounced_idx ON domains (LEAST(released_at, deleted_at))
    WHERE (released_at IS NOT NULL OR (deleted_at IS NOT NULL AND NOT deleted_with_app))
        AND withdrawal_announced_at IS NULL;

-- The purge removes a domain's row; those not yet announced wait here until content has answered.
CREATE TABLE purged_domains (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    purged_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX purged_domains_purged_idx ON purged_domains (purged_at, id);

-- Reclaiming a verified hostname (docs/architecture.md, "Domain ownership"): the TXT record of a
-- verified app domain is looked up again every DOMAIN_RECHECK_SECONDS. `record_checked_at` says
-- when it last was; `record_missing_since` when it was first found absent (NULL while present).
-- Once it has been absent for DOMAIN_RECLAIM_GRACE_SECONDS, another organization's proof takes
-- the hostname over, as it does an unverified claim.
ALTER TABLE domains
    ADD COLUMN record_checked_at timestamptz,
    ADD COLUMN record_missing_since timestamptz;

CREATE INDEX domains_recheck_idx ON domains (COALESCE(record_checked_at, verified_at))
    WHERE scope = 'app' AND verified_at IS NOT NULL AND released_at IS NULL AND deleted_at IS NULL;

-- Proving a hostname (docs/architecture.md, "Domain ownership"). A domain is claimed unverified
-- until a DNS TXT record at _aivis-challenge.<domain> carries its token; an unverified claim lapses
-- at `expires_at` (DOMAIN_CLAIM_DAYS after it was made), a verified one never does (NULL). A claim
-- ends with `released_at`: it lapsed ('expired') or another organization proved the hostname
-- ('claimed'); a released row stays visible to its organization but holds nothing.
ALTER TABLE domains
    ADD COLUMN verification_token text NOT NULL
        DEFAULT replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''),
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN verified_at timestamptz,
    ADD COLUMN verification_checked_at timestamptz,
    -- The last failed check's {code, message}; NULL once one succeeds.
    ADD COLUMN verification_error jsonb,
    ADD COLUMN released_at timestamptz,
    ADD COLUMN release_reason text CHECK (release_reason IN ('expired', 'claimed')),
    -- When the content service was told to detach the released domain from its documents.
    ADD COLUMN release_announced_at timestamptz;

-- Domains from before: those an operator made for legacy routing count as verified; an app's get a
-- full claim period from now, so nothing lapses the moment this runs.
UPDATE domains SET verified_at = created_at WHERE scope = 'product';
UPDATE domains SET expires_at = clock_timestamp() + interval '7 days' WHERE verified_at IS NULL;
ALTER TABLE domains
    ADD CONSTRAINT domains_claim_check CHECK ((verified_at IS NULL) = (expires_at IS NOT NULL)),
    ADD CONSTRAINT domains_release_check CHECK ((released_at IS NULL) = (release_reason IS NULL));

-- One hostname is held in one place across every organization (a deleted app's until the purge,
-- migration 110); a released claim holds nothing.
DROP INDEX domains_live_hostname_key;
CREATE UNIQUE INDEX domains_live_hostname_key ON domains (domain)
    WHERE (deleted_at IS NULL OR deleted_with_app) AND released_at IS NULL;
CREATE INDEX domains_expiring_idx ON domains (expires_at) WHERE released_at IS NULL;
CREATE INDEX domains_unannounced_idx ON domains (released_at)
    WHERE released_at IS NOT NULL AND release_announced_at IS NULL;

-- A newcomer's challenge for a hostname another organization holds unverified: the 409 of
-- `POST /apps/{appId}/domains` hands out its token; the same request again, once the TXT record
-- carries it, releases the holder's claim and adds the domain to this app, verified.
CREATE TABLE domain_challenges (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    -- The purge removes an app with its challenges.
    app_id          uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    domain          text NOT NULL,
    token           text NOT NULL DEFAULT replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''),
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at      timestamptz NOT NULL,
    UNIQUE (app_id, domain)
);
CREATE INDEX domain_challenges_expiring_idx ON domain_challenges (expires_at);

-- Invitations to an organization: a person becomes a member only by accepting one. The link's
-- token is kept as its SHA-256 only; one pending invitation per organization and email.
CREATE TABLE invitations (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email       text NOT NULL CHECK (email = lower(email)),
    role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    token_hash  bytea NOT NULL UNIQUE,
    invited_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    answered_at timestamptz,
    answer      text CHECK (answer IN ('accepted', 'declined', 'withdrawn')),
    CHECK ((answer IS NULL) = (answered_at IS NULL))
);
CREATE UNIQUE INDEX invitations_pending_idx ON invitations (organization_id, email) WHERE answered_at IS NULL;
CREATE INDEX invitations_email_idx ON invitations (email) WHERE answered_at IS NULL;

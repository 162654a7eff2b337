-- Revocation that reaches access tokens, not only refresh tokens. Access tokens are JWTs checked
-- without a database read, so what ends them travels on the identity change log (004), which
-- every replica reads each second:
--   * a revoked grant (RFC 7009 revocation, a reused refresh token, a password change) names
--     the grant; the access tokens of that family carry its id (`gid`) and are refused;
--   * a user's credentials_revoked_at (set by a password change) refuses every access token
--     issued and every session opened at or before it.

ALTER TABLE users ADD COLUMN credentials_revoked_at timestamptz;

ALTER TABLE oauth_grants DROP CONSTRAINT oauth_grants_revoked_reason_check;
ALTER TABLE oauth_grants ADD CONSTRAINT oauth_grants_revoked_reason_check
    CHECK (revoked_reason IN ('revoked', 'reused', 'membership', 'password'));
CREATE INDEX oauth_grants_user_idx ON oauth_grants (user_id) WHERE revoked_at IS NULL;

ALTER TABLE identity_changes DROP CONSTRAINT identity_changes_kind_check;
ALTER TABLE identity_changes ADD CONSTRAINT identity_changes_kind_check
    CHECK (kind IN ('organization', 'product', 'membership', 'grant', 'user'));

CREATE TRIGGER oauth_grants_revoked AFTER UPDATE OF revoked_at ON oauth_grants
    FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at)
    EXECUTE FUNCTION record_identity_change('grant');
CREATE TRIGGER users_credentials_revoked AFTER UPDATE OF credentials_revoked_at ON users
    FOR EACH ROW WHEN (OLD.credentials_revoked_at IS DISTINCT FROM NEW.credentials_revoked_at)
    EXECUTE FUNCTION record_identity_change('user');

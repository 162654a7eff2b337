-- Identity changes that take access away (or give it) must reach every gateway replica's caches
-- within seconds. Triggers record every change of a membership, organization or product here,
-- whoever makes it (the API, the admin command line, plain SQL, a cascade); every replica reads
-- the recent rows each second and drops what they name from its caches.

CREATE TABLE identity_changes (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- 'organization' (key: its id), 'product' (its id) or 'membership' ("<user id>:<organization id>").
    kind       text NOT NULL CHECK (kind IN ('organization', 'product', 'membership')),
    key        text NOT NULL,
    -- clock_timestamp(), not now(): pollers compare against the time the change commits.
    changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX identity_changes_changed_at_idx ON identity_changes (changed_at);

CREATE FUNCTION record_identity_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed record;
BEGIN
    IF TG_OP = 'DELETE' THEN
        changed := OLD;
    ELSE
        changed := NEW;
    END IF;
    IF TG_ARGV[0] = 'membership' THEN
        INSERT INTO identity_changes (kind, key)
        VALUES ('membership', changed.user_id::text || ':' || changed.organization_id::text);
    ELSE
        INSERT INTO identity_changes (kind, key) VALUES (TG_ARGV[0], changed.id::text);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER organizations_changed AFTER INSERT OR UPDATE OR DELETE ON organizations
    FOR EACH ROW EXECUTE FUNCTION record_identity_change('organization');
CREATE TRIGGER products_changed AFTER INSERT OR UPDATE OR DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION record_identity_change('product');
CREATE TRIGGER memberships_changed AFTER INSERT OR UPDATE OR DELETE ON memberships
    FOR EACH ROW EXECUTE FUNCTION record_identity_change('membership');

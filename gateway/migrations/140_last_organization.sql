-- The organization a user last acted in on the dashboard: sign-in lands there.
ALTER TABLE users ADD COLUMN last_organization_id uuid REFERENCES organizations (id) ON DELETE SET NULL;

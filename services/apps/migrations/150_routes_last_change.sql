-- An app's latest route change, for the version its kept llms.txt and sitemap.xml are checked
-- against on every read (docs/architecture.md, "What agents read"). One index probe.
CREATE INDEX routes_app_changed_idx ON routes (app_id, updated_at);

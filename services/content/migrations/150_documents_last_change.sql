-- An organization's latest document change, deleted documents included (a delete stamps
-- updated_at too): what an App's llms.txt and sitemap.xml, kept by the apps service, are checked
-- against on every read (docs/architecture.md, "What agents read"). One index probe.
CREATE INDEX documents_organization_changed_idx ON documents (organization_id, updated_at);

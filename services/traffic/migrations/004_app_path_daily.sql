-- The paths each App's agents requested each day, without status or verification: what distinct
-- paths over a period count (docs/performance.md, "AI traffic"). Rows are only ever inserted,
-- never updated, so the key alone answers the count (an index-only scan).
CREATE TABLE app_path_daily (
    organization_id uuid NOT NULL,
    app_id          uuid NOT NULL,
    day             timestamptz NOT NULL,
    path            text NOT NULL,
    PRIMARY KEY (organization_id, app_id, day, path)
);
CREATE INDEX app_path_daily_organization_idx ON app_path_daily (organization_id, day);

INSERT INTO app_path_daily SELECT DISTINCT organization_id, app_id, day, path FROM path_daily;

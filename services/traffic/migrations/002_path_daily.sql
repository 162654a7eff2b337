-- Paths by day as well as by hour: distinct paths and paths by day over a month read 30 rows a path,
-- not 720 (docs/performance.md, "AI traffic").
CREATE TABLE path_daily (
    organization_id uuid NOT NULL,
    app_id          uuid NOT NULL,
    day             timestamptz NOT NULL,
    path            text NOT NULL,
    status_class    text NOT NULL,
    verified        boolean NOT NULL,
    visits          bigint NOT NULL,
    bytes           bigint NOT NULL,
    PRIMARY KEY (organization_id, app_id, day, path, status_class, verified)
);
CREATE INDEX path_daily_organization_idx ON path_daily (organization_id, day);

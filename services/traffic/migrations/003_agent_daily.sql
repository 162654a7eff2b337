-- Agents by day as well as by hour: a month's summary by day or week reads 30 rows an agent and
-- status, not 720 (docs/performance.md, "AI traffic"). Filled from the hourly rows already kept.
CREATE TABLE agent_daily (
    organization_id uuid NOT NULL,
    app_id          uuid NOT NULL,
    day             timestamptz NOT NULL,
    bot_id          text NOT NULL,
    operator        text NOT NULL,
    category        text NOT NULL,
    status_class    text NOT NULL,
    verified        boolean NOT NULL,
    spoofed         boolean NOT NULL,
    visits          bigint NOT NULL,
    bytes           bigint NOT NULL,
    PRIMARY KEY (organization_id, app_id, day, bot_id, operator, category, status_class, verified, spoofed)
);
CREATE INDEX agent_daily_organization_idx ON agent_daily (organization_id, day);

INSERT INTO agent_daily
SELECT organization_id, app_id, date_trunc('day', hour, 'UTC'), bot_id, operator, category, status_class, verified,
       spoofed, sum(visits), sum(bytes)
FROM agent_hourly GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;

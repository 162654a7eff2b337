-- How far the events part has taken each source's events: every change (outbox position, which
-- is also its stream entry id) up to `position` is stored as a webhook event. When a stream lacks
-- changes after it (Redis came back empty, or trimmed a slow reader's entries), they are read
-- from their part instead (libs/common/catch_up.py). One row per source: `content`, and
-- `webhooks:<part>` for each part's webhook outbox.
CREATE TABLE event_progress (
    consumer text PRIMARY KEY,
    position bigint NOT NULL
);

-- How far the index has applied the content service's changes: every change (outbox position,
-- which is also its stream entry id) up to `position` is in the index. When the event stream
-- lacks changes after it (Redis came back empty, or trimmed a slow reader's entries), they are
-- read from the content service instead (libs/common/catch_up.py).
CREATE TABLE event_progress (
    consumer text PRIMARY KEY,
    position bigint NOT NULL
);

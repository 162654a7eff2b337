-- How far the copy of the products has applied the gateway's product changes: every change (product
-- outbox position, also its stream entry id) up to `position` is applied. When the event stream
-- lacks changes after it (Redis came back empty, or trimmed a slow reader's entries), they are
-- read from the gateway instead (libs/common/catch_up.py).
CREATE TABLE event_progress (
    consumer text PRIMARY KEY,
    position bigint NOT NULL
);

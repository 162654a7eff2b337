-- Objects of the part's object store (libs/common/object_store.py) when it is PostgreSQL: each
-- run's step log, written whole when the run ends, at the key its logS3Keys names.

CREATE TABLE objects (
    key          text PRIMARY KEY,
    content_type text NOT NULL,
    body         bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);

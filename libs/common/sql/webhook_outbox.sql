-- The webhook outbox (libs/common/webhook_outbox.py): events for organizations' webhooks,
-- queued in the transaction of the change and published by the relay to
-- <REDIS_PREFIX>events:webhooks:<part>.
CREATE TABLE webhook_outbox (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              uuid NOT NULL DEFAULT gen_random_uuid(),
    type            text NOT NULL,
    organization_id uuid NOT NULL,
    resource_key    text NOT NULL,
    data            jsonb NOT NULL,
    occurred_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    position        bigint UNIQUE,
    published_at    timestamptz
);
CREATE INDEX webhook_outbox_unplaced_idx ON webhook_outbox (seq) WHERE position IS NULL;
CREATE INDEX webhook_outbox_unpublished_idx ON webhook_outbox (position)
    WHERE position IS NOT NULL AND published_at IS NULL;
CREATE INDEX webhook_outbox_published_idx ON webhook_outbox (published_at) WHERE published_at IS NOT NULL;

CREATE TABLE webhook_outbox_relay (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    last_position  bigint NOT NULL,
    pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO webhook_outbox_relay (last_position) VALUES (0);

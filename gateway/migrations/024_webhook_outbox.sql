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

-- API key changes as webhook events: every change already writes an api_key_events row in its
-- transaction (gateway/auth/key_changes.py), so a trigger on it queues the event, whichever
-- code path (dashboard, operator command) made the change. The key as listings show it; never its hash.
CREATE FUNCTION queue_api_key_webhook() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    key api_keys;
BEGIN
    SELECT * INTO key FROM api_keys WHERE id = NEW.api_key_id;
    INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
    VALUES ('api_key.' || NEW.action, NEW.organization_id, 'api_key:' || NEW.api_key_id,
            jsonb_build_object(
                'id', key.id, 'name', key.name, 'prefix', key.prefix, 'scopes', to_jsonb(key.scopes),
                'createdAt', key.created_at, 'expiresAt', key.expires_at, 'revokedAt', key.revoked_at,
                'actor', NEW.actor, 'details', NEW.details));
    RETURN NEW;
END;
$$;

CREATE TRIGGER api_key_events_queue_webhook AFTER INSERT ON api_key_events
    FOR EACH ROW EXECUTE FUNCTION queue_api_key_webhook();

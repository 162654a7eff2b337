\ir ../../libs/common/sql/webhook_outbox.sql

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

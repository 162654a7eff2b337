\ir ../../../libs/common/sql/webhook_outbox.sql

-- Apps, their domains and routes announce their changes from triggers, in the writer's
-- transaction, whichever code path writes (libs/common/webhook_outbox.py).
CREATE FUNCTION queue_app_webhook() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
    VALUES (CASE WHEN TG_OP = 'INSERT' THEN 'app.created'
                 WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN 'app.deleted'
                 WHEN OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NULL THEN 'app.restored'
                 ELSE 'app.updated' END,
            NEW.organization_id, 'app:' || NEW.id,
            jsonb_build_object('id', NEW.id, 'organizationId', NEW.organization_id, 'name', NEW.name,
                               'slug', NEW.slug, 'metadata', NEW.metadata, 'createdAt', NEW.created_at,
                               'updatedAt', NEW.updated_at, 'deletedAt', NEW.deleted_at));
    RETURN NEW;
END;
$$;
CREATE TRIGGER apps_queue_webhook AFTER INSERT OR UPDATE ON apps
    FOR EACH ROW EXECUTE FUNCTION queue_app_webhook();

-- An app's domains (not the legacy routing's product domains). `verified`: the edge provider
-- registered the name (provider_id set).
CREATE FUNCTION queue_domain_webhook() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    event text;
BEGIN
    IF NEW.scope <> 'app' THEN
        RETURN NEW;
    END IF;
    event := CASE WHEN TG_OP = 'INSERT' THEN 'app.domain.created'
                  WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN 'app.domain.deleted'
                  WHEN OLD.provider_id IS NULL AND NEW.provider_id IS NOT NULL THEN 'app.domain.verified' END;
    IF event IS NOT NULL THEN
        INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
        VALUES (event, NEW.organization_id, 'app.domain:' || NEW.id,
                jsonb_build_object('id', NEW.id, 'domain', NEW.domain, 'scope', NEW.scope, 'appId', NEW.app_id,
                                   'productId', NEW.product_id, 'providerId', NEW.provider_id, 'type', NEW.type,
                                   'origin', NEW.origin, 'createdAt', NEW.created_at, 'updatedAt', NEW.updated_at,
                                   'deletedAt', NEW.deleted_at));
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER domains_queue_webhook AFTER INSERT OR UPDATE ON domains
    FOR EACH ROW EXECUTE FUNCTION queue_domain_webhook();

-- Routes are written in batches (imports of thousands): one statement-level insert per batch.
CREATE FUNCTION queue_route_webhooks() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
        SELECT 'app.route.deleted', r.organization_id, 'app.route:' || r.id,
               jsonb_build_object('id', r.id, 'appId', r.app_id, 'path', r.path, 'targetType', r.target_type,
                                  'targetId', r.target_id, 'createdAt', r.created_at, 'updatedAt', r.updated_at)
        FROM old_rows r ORDER BY r.id;
    ELSE
        INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
        SELECT CASE TG_OP WHEN 'INSERT' THEN 'app.route.created' ELSE 'app.route.updated' END,
               r.organization_id, 'app.route:' || r.id,
               jsonb_build_object('id', r.id, 'appId', r.app_id, 'path', r.path, 'targetType', r.target_type,
                                  'targetId', r.target_id, 'createdAt', r.created_at, 'updatedAt', r.updated_at)
        FROM new_rows r ORDER BY r.id;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER routes_queue_webhooks_insert AFTER INSERT ON routes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION queue_route_webhooks();
CREATE TRIGGER routes_queue_webhooks_update AFTER UPDATE ON routes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION queue_route_webhooks();
CREATE TRIGGER routes_queue_webhooks_delete AFTER DELETE ON routes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION queue_route_webhooks();

-- Events named for what happened, recorded by the write that makes the change (libs/common/webhook_outbox.py):
-- - an app is announced by the functions that write it (services/apps/queries/apps.py and
--   deletion.py): `app.created`, `app.updated`, `app.deleted`, `app.restored`;
-- - an app's domains are announced by the functions that write them (services/apps/queries/domains.py),
--   with the domain as the API shows it: `app.domain.created` when added (verified or not),
--   `app.domain.verified` only when its TXT record is found, `app.domain.deleted`;
-- - a route's soft delete is `app.route.deleted` at the moment of the delete, its payload carrying
--   `deletedAt`; the purge, which removes routes deleted long before, announces nothing more.
DROP TRIGGER apps_queue_webhook ON apps;
DROP FUNCTION queue_app_webhook();
DROP TRIGGER domains_queue_webhook ON domains;
DROP FUNCTION queue_domain_webhook();
DROP TRIGGER routes_queue_webhooks_delete ON routes;
DROP TRIGGER routes_queue_webhooks_update ON routes;

-- A route's webhook data: the route as the API shows it, less the target and product answers attach.
CREATE FUNCTION route_webhook_data(r routes) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('id', r.id, 'appId', r.app_id, 'path', r.path, 'targetType', r.target_type,
                              'targetId', r.target_id, 'createdAt', r.created_at, 'updatedAt', r.updated_at,
                              'deletedAt', r.deleted_at)
$$;

CREATE OR REPLACE FUNCTION queue_route_webhooks() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
        SELECT 'app.route.created', r.organization_id, 'app.route:' || r.id, route_webhook_data(r)
        FROM new_rows r ORDER BY r.id;
    ELSE
        INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
        SELECT CASE WHEN o.deleted_at IS NULL AND r.deleted_at IS NOT NULL THEN 'app.route.deleted'
                    ELSE 'app.route.updated' END,
               r.organization_id, 'app.route:' || r.id, route_webhook_data(r)
        FROM new_rows r JOIN old_rows o ON o.id = r.id ORDER BY r.id;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER routes_queue_webhooks_update AFTER UPDATE ON routes
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION queue_route_webhooks();

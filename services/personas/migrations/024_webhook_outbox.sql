\ir ../../../libs/common/sql/webhook_outbox.sql

-- A persona created, changed or deleted is announced as `persona.updated`, carrying the persona
-- as the API shows it, from a trigger: in the writer's transaction, whichever code path writes.
CREATE FUNCTION queue_persona_webhook() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO webhook_outbox (type, organization_id, resource_key, data)
    VALUES ('persona.updated', NEW.organization_id, 'persona:' || NEW.id,
            jsonb_build_object(
                'id', NEW.id, 'organizationId', NEW.organization_id, 'productId', NEW.product_id,
                'name', NEW.name, 'description', NEW.description, 'systemPrompt', NEW.system_prompt,
                'createdAt', NEW.created_at, 'updatedAt', NEW.updated_at, 'deletedAt', NEW.deleted_at));
    RETURN NEW;
END;
$$;

CREATE TRIGGER personas_queue_webhook AFTER INSERT OR UPDATE ON personas
    FOR EACH ROW EXECUTE FUNCTION queue_persona_webhook();

-- Product events: every change of a product row queues an event in the same transaction (a
-- trigger, so no write path can forget it), published by the gateway's outbox relay to
-- <REDIS_PREFIX>events:identity. Unlike content events, a product event carries the product's
-- state: the parts that keep a copy (apps) never call back into the gateway for it.
-- `seq` is the event's version: a product's row is locked while its event is queued, so the
-- events of one product get increasing numbers in the order their transactions commit.

CREATE TABLE product_outbox (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              uuid NOT NULL DEFAULT gen_random_uuid(),
    type            text NOT NULL CHECK (type IN ('product.created', 'product.changed', 'product.deleted')),
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    name            text NOT NULL,
    slug            text NOT NULL,
    deleted_at      timestamptz,
    occurred_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    position        bigint UNIQUE,
    published_at    timestamptz
);
CREATE INDEX product_outbox_unplaced_idx ON product_outbox (seq) WHERE position IS NULL;
CREATE INDEX product_outbox_unpublished_idx ON product_outbox (position)
    WHERE position IS NOT NULL AND published_at IS NULL;
CREATE INDEX product_outbox_published_idx ON product_outbox (published_at) WHERE published_at IS NOT NULL;

-- The last position handed out: positions are contiguous and never reused.
CREATE TABLE product_outbox_relay (
    singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    last_position bigint NOT NULL
);
INSERT INTO product_outbox_relay (last_position) VALUES (0);

-- Bound to this schema, whatever the writer's search_path.
CREATE FUNCTION queue_product_event() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO product_outbox (type, organization_id, product_id, name, slug, deleted_at)
        VALUES ('product.deleted', OLD.organization_id, OLD.id, OLD.name, OLD.slug,
                coalesce(OLD.deleted_at, clock_timestamp()));
        RETURN OLD;
    END IF;
    INSERT INTO product_outbox (type, organization_id, product_id, name, slug, deleted_at)
    VALUES (CASE WHEN NEW.deleted_at IS NOT NULL THEN 'product.deleted'
                 WHEN TG_OP = 'INSERT' THEN 'product.created'
                 ELSE 'product.changed' END,
            NEW.organization_id, NEW.id, NEW.name, NEW.slug, NEW.deleted_at);
    RETURN NEW;
END;
$$;

CREATE TRIGGER products_queue_event AFTER INSERT OR DELETE OR UPDATE OF organization_id, name, slug, deleted_at
    ON products FOR EACH ROW EXECUTE FUNCTION queue_product_event();

-- The products that exist already, so a consumer reading the stream from its start knows them all.
INSERT INTO product_outbox (type, organization_id, product_id, name, slug, deleted_at)
SELECT CASE WHEN deleted_at IS NULL THEN 'product.created' ELSE 'product.deleted' END,
       organization_id, id, name, slug, deleted_at
FROM products ORDER BY created_at, id;

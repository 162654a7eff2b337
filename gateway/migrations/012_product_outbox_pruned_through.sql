-- The highest position removed from the product outbox by pruning: the apps service asking for
-- the product changes after a position learns whether they are all still here (libs/common/changes.py).
ALTER TABLE product_outbox_relay ADD COLUMN pruned_through bigint NOT NULL DEFAULT 0;
-- Rows pruned before this column existed: at most everything below the oldest one kept.
UPDATE product_outbox_relay
   SET pruned_through = coalesce((SELECT min(position) - 1 FROM product_outbox WHERE position IS NOT NULL),
                                 last_position);

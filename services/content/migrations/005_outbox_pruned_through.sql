-- The highest position removed from the outbox by pruning: a consumer asking for the changes
-- after a position learns whether the outbox still holds all of them (libs/common/changes.py).
ALTER TABLE outbox_relay ADD COLUMN pruned_through bigint NOT NULL DEFAULT 0;
-- Rows pruned before this column existed: at most everything below the oldest one kept.
UPDATE outbox_relay SET pruned_through = coalesce((SELECT min(position) - 1 FROM outbox WHERE position IS NOT NULL),
                                                  last_position);

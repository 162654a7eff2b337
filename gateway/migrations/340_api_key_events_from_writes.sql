-- API key events are recorded by the functions that change a key (gateway/auth/key_changes.py),
-- in the transaction of the change, with the key as gateway/shapes.py declares it.
DROP TRIGGER api_key_events_queue_webhook ON api_key_events;
DROP FUNCTION queue_api_key_webhook();

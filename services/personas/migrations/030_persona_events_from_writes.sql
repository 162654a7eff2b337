-- A persona is announced by the functions that write it (services/personas/queries.py), with the
-- persona as the API shows it, in the writer's transaction: no trigger restates its fields.
DROP TRIGGER personas_queue_webhook ON personas;
DROP FUNCTION queue_persona_webhook();

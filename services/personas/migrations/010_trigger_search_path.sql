-- Trigger functions are bound to this schema, whoever fires them (as in every part).
ALTER FUNCTION updated_at_is_created_at() SET search_path FROM CURRENT;

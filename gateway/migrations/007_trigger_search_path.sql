-- A trigger runs in whatever session changed the row: another role, another search_path (an
-- operator's psql, a cascade from elsewhere). Its function is bound to this schema, so every table
-- it names is this schema's whoever fires it (005's queue_product_event already is).
ALTER FUNCTION record_identity_change() SET search_path FROM CURRENT;

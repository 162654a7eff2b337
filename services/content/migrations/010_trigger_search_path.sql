-- A trigger runs in whatever session changed the row: another role, another search_path (an
-- operator's psql). Each trigger function is bound to this schema, so every table it names is
-- this schema's whoever fires it.
ALTER FUNCTION copy_document_facets() SET search_path FROM CURRENT;
ALTER FUNCTION follow_document_facets() SET search_path FROM CURRENT;
ALTER FUNCTION count_document_changes() SET search_path FROM CURRENT;
ALTER FUNCTION list_new_documents() SET search_path FROM CURRENT;
ALTER FUNCTION relist_document() SET search_path FROM CURRENT;

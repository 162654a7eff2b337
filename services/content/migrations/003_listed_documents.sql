-- The site-pages list's substring filter under ordinary writes (docs/performance.md, "Under
-- ordinary writes (issue 15)").

-- One narrow row per live document holding what the list filters and orders on, with the title
-- lowercased. Trigram matches are lossy, so a substring search rechecks the row of every match
-- to count them exactly: here about 45 rows share a heap page, against about 6 in documents,
-- whose rows carry the content, and the table is an eighth of their size, so it stays cached
-- more often. Kept by the triggers below, in the transaction of the write.
CREATE TABLE listed_documents (
    id          uuid PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    product_id  uuid NOT NULL,
    status      text NOT NULL,
    type        text NOT NULL,
    is_manual   boolean NOT NULL,
    has_content boolean NOT NULL,
    file_path   text COLLATE "C" NOT NULL,
    -- lower(title): `title ILIKE p` is `lower(title) LIKE lower(p)` in a multibyte database (which
    -- is how PostgreSQL evaluates it), so a search lowercases the pattern once, not every title.
    title_lower text NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
) WITH (
    parallel_workers = 0,
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02
);

-- A document's row in the listing (whether it is live is the caller's question).
CREATE FUNCTION document_listing(d documents) RETURNS listed_documents LANGUAGE sql IMMUTABLE AS $$
    SELECT d.id, d.product_id, d.status, d.type, d.is_manual, d.has_content, d.file_path, lower(d.title),
           d.created_at, d.updated_at
$$;

INSERT INTO listed_documents SELECT l.* FROM documents d, document_listing(d) l WHERE d.deleted_at IS NULL;
-- Statistics at once: without them the planner takes the product's whole index into every search.
ANALYZE listed_documents;

-- The substring filter: no pending list (every search would scan it in full until the next
-- vacuum). The list's two orders, so that a page of matches stops after pageSize of them.
CREATE INDEX listed_documents_title_trgm_idx ON listed_documents USING gin (title_lower public.gin_trgm_ops)
    WITH (fastupdate = off);
CREATE INDEX listed_documents_path_trgm_idx ON listed_documents USING gin (file_path public.gin_trgm_ops)
    WITH (fastupdate = off);
CREATE INDEX listed_documents_updated_idx ON listed_documents (product_id, updated_at DESC, id DESC);
CREATE INDEX listed_documents_created_idx ON listed_documents (product_id, created_at DESC, id DESC);

-- Searches no longer read documents' trigram indexes; every write would still pay for them.
DROP INDEX documents_title_trgm_idx;
DROP INDEX documents_path_trgm_idx;

CREATE FUNCTION list_new_documents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO listed_documents SELECT l.* FROM new_rows d, document_listing(d) l WHERE d.deleted_at IS NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_listed AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_new_documents();

-- An edit replaces the document's row; a deleted document leaves the listing.
CREATE FUNCTION relist_document() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM listed_documents WHERE id = OLD.id;
    INSERT INTO listed_documents SELECT * FROM document_listing(NEW) WHERE NEW.deleted_at IS NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_relisted AFTER UPDATE ON documents FOR EACH ROW
    WHEN (document_listing(OLD) IS DISTINCT FROM document_listing(NEW) OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
    EXECUTE FUNCTION relist_document();

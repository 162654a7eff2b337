-- The site-pages list under ordinary writes (docs/performance.md, "Site pages at 100,000 documents").

-- Live documents counted by product and list facets. The exact total of a product's list, and of
-- any combination of these filters, is then a sum over a few rows instead of a count over every
-- document, which slows down as writes leave heap pages that autovacuum has not yet marked
-- all-visible. Triggers only append signed changes, so concurrent writers never wait on a shared
-- counter row; the content service folds them (fold_counts in queries/site_pages.py).
CREATE TABLE document_counts (
    product_id  uuid NOT NULL,
    status      text NOT NULL,
    type        text NOT NULL,
    is_manual   boolean NOT NULL,
    has_content boolean NOT NULL,
    n           bigint NOT NULL
);
CREATE INDEX document_counts_product_idx ON document_counts (product_id);

INSERT INTO document_counts (product_id, status, type, is_manual, has_content, n)
SELECT product_id, status, type, is_manual, has_content, count(*)
  FROM documents WHERE deleted_at IS NULL
 GROUP BY product_id, status, type, is_manual, has_content;

-- One statement's change of the counts: +1 for each live row after it, -1 for each before it.
-- An edit that leaves a document live with the same facets cancels out and writes nothing.
CREATE FUNCTION count_document_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO document_counts (product_id, status, type, is_manual, has_content, n)
        SELECT product_id, status, type, is_manual, has_content, count(*)
          FROM new_rows WHERE deleted_at IS NULL
         GROUP BY product_id, status, type, is_manual, has_content;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO document_counts (product_id, status, type, is_manual, has_content, n)
        SELECT product_id, status, type, is_manual, has_content, sum(n)
          FROM (SELECT product_id, status, type, is_manual, has_content, 1 AS n
                  FROM new_rows WHERE deleted_at IS NULL
                UNION ALL
                SELECT product_id, status, type, is_manual, has_content, -1
                  FROM old_rows WHERE deleted_at IS NULL) AS changes
         GROUP BY product_id, status, type, is_manual, has_content
        HAVING sum(n) <> 0;
    ELSE
        INSERT INTO document_counts (product_id, status, type, is_manual, has_content, n)
        SELECT product_id, status, type, is_manual, has_content, -count(*)
          FROM old_rows WHERE deleted_at IS NULL
         GROUP BY product_id, status, type, is_manual, has_content;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_counted_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_document_changes();
CREATE TRIGGER documents_counted_update AFTER UPDATE ON documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_document_changes();
CREATE TRIGGER documents_counted_delete AFTER DELETE ON documents
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_document_changes();

-- The substring filter's count reads the heap page of every trigram match, so its plan must stay
-- a bitmap scan of the trigram indexes. Entries go straight into the trigram indexes instead of
-- a pending list every search scans in full until the next vacuum; no parallel plans on two
-- cores shared with the services (after 11,000 edits the planner chose a parallel sequential
-- scan of the whole table over the bitmap, at four times the time).
ALTER INDEX documents_title_trgm_idx SET (fastupdate = off);
ALTER INDEX documents_path_trgm_idx SET (fastupdate = off);
-- Vacuumed and analysed after 2% of the rows changed instead of 20%: the visibility map, which
-- spares the index-only counts (path prefix, domains) their heap visits, follows the edits.
ALTER TABLE documents SET (
    parallel_workers = 0,
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02
);

-- Route candidates (the apps service) read a product's documents of one status a page at a time, in
-- path order and then id (the order across products), each page starting after the last one's
-- final document. From this index a page is one range scan, however large the product
-- (docs/performance.md, "Apps: route candidates").
CREATE INDEX documents_targets_idx ON documents (product_id, status, file_path, id) WHERE deleted_at IS NULL;

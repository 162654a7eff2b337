-- A route keeps its path as the client sent it (RFC 3986-normalised, libs.contract.validators.
-- rfc3986_route_path: "/caf%C3%A9" stays so) and is unique on the path's canonical key
-- (normalize_route_path: decoded once, NFC, no empty or dot segments), so equivalent spellings are
-- still one route. Paths stored before were canonical already: each is its own key.
ALTER TABLE routes ADD COLUMN path_key text;
UPDATE routes SET path_key = path;
ALTER TABLE routes ALTER COLUMN path_key SET NOT NULL,
    ADD CONSTRAINT routes_path_key_check CHECK (left(path_key, 1) = '/');
-- md5, as before: a key of 2048 multi-byte characters is larger than a btree entry may be.
CREATE UNIQUE INDEX routes_app_canonical_path_key ON routes (app_id, md5(path_key));
DROP INDEX routes_app_path_key;

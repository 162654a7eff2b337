-- Content documents of an organization's products, their domain attachments, and the outbox
-- of the events other parts learn of them by. organization_id, product_id and domain_id refer
-- to other parts' records: plain columns, no foreign key crosses schemas.

CREATE TABLE documents (
    id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id       uuid NOT NULL,
    product_id            uuid NOT NULL,
    -- "C" collation: paths compare byte by byte, so the path index also serves prefix matches.
    file_path             text COLLATE "C" NOT NULL CHECK (file_path LIKE '/%' AND length(file_path) <= 2048),
    title                 text NOT NULL,
    content               text NOT NULL DEFAULT '',
    has_content           boolean NOT NULL GENERATED ALWAYS AS (content <> '') STORED,
    source_url            text,
    css_selector          text,
    css_exclude_selector  text,
    source_checksum       text,
    is_manual             boolean NOT NULL DEFAULT true,
    canonical_url         text,
    description           text,
    description_for_agent text,
    image                 text,
    meta_title            text,
    meta_description      text,
    no_index              boolean NOT NULL DEFAULT false,
    og_title              text,
    og_description        text,
    og_image              text,
    twitter_title         text,
    twitter_description   text,
    twitter_image         text,
    type                  text NOT NULL DEFAULT 'page',
    tags                  text[] NOT NULL DEFAULT '{}',
    current_draft_id      text,
    status                text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
    priority              double precision NOT NULL DEFAULT 50 CHECK (priority BETWEEN 0 AND 100),
    prompt_id             text,
    redirect_to_url       text,
    metadata              jsonb,
    tiptap_json           jsonb,
    -- clock_timestamp(), not now(): pages created in one request still get distinct, ordered times.
    created_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at            timestamptz,
    last_indexed_at       timestamptz,
    published_at          timestamptz,
    CHECK ((status = 'published') = (published_at IS NOT NULL))
);
-- A path is taken once among a product's live documents; a deleted document frees its path. The
-- included columns let the site-pages list count a path prefix with its other filters from the
-- index alone.
CREATE UNIQUE INDEX documents_live_path_key ON documents (product_id, file_path)
    INCLUDE (status, type, is_manual, has_content) WHERE deleted_at IS NULL;
-- The site-pages list: one product's live documents, newest first by either timestamp.
CREATE INDEX documents_updated_idx ON documents (product_id, updated_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX documents_created_idx ON documents (product_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
-- Its exact total: any combination of these filters is counted from this index alone.
CREATE INDEX documents_facets_idx ON documents (product_id, status, type, is_manual, has_content)
    WHERE deleted_at IS NULL;
-- Case-insensitive substring match on title and path (ILIKE '%...%').
CREATE INDEX documents_title_trgm_idx ON documents USING gin (title public.gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX documents_path_trgm_idx ON documents USING gin (file_path public.gin_trgm_ops) WHERE deleted_at IS NULL;
-- The search service's full pass over an organization, in id order.
CREATE INDEX documents_organization_idx ON documents (organization_id, id) WHERE deleted_at IS NULL;

CREATE TABLE document_domains (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    document_id  uuid NOT NULL REFERENCES documents (id),
    domain_id    uuid NOT NULL,
    -- The hostname as the apps service named it when it was attached.
    domain       text NOT NULL,
    is_canonical boolean NOT NULL DEFAULT false,
    -- The document's product and list filters, copied by the triggers below, so a list filtered
    -- by domain is counted from one index of this table instead of a join over both.
    product_id   uuid NOT NULL,
    status       text NOT NULL,
    type         text NOT NULL,
    is_manual    boolean NOT NULL,
    has_content  boolean NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at   timestamptz
);
-- A document is attached to a domain, and served on a hostname, at most once.
CREATE UNIQUE INDEX document_domains_live_key ON document_domains (document_id, domain_id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX document_domains_live_hostname_key ON document_domains (document_id, domain)
    WHERE deleted_at IS NULL;
-- At most one canonical domain per document.
CREATE UNIQUE INDEX document_domains_canonical_key ON document_domains (document_id)
    WHERE is_canonical AND deleted_at IS NULL;
-- Counting a product's documents on one domain (by id or hostname) with any other list filter.
CREATE INDEX document_domains_facets_idx ON document_domains
    (product_id, domain_id, status, type, is_manual, has_content) WHERE deleted_at IS NULL;
CREATE INDEX document_domains_hostname_facets_idx ON document_domains
    (product_id, domain, status, type, is_manual, has_content) WHERE deleted_at IS NULL;

CREATE FUNCTION copy_document_facets() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT product_id, status, type, is_manual, has_content
      INTO NEW.product_id, NEW.status, NEW.type, NEW.is_manual, NEW.has_content
      FROM documents WHERE id = NEW.document_id;
    RETURN NEW;
END $$;
CREATE TRIGGER document_domains_facets BEFORE INSERT ON document_domains
    FOR EACH ROW EXECUTE FUNCTION copy_document_facets();

-- A document's changed filters reach its attachments; a deleted document takes them with it.
CREATE FUNCTION follow_document_facets() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE document_domains
       SET status = NEW.status, type = NEW.type, is_manual = NEW.is_manual, has_content = NEW.has_content,
           deleted_at = NEW.deleted_at
     WHERE document_id = NEW.id AND deleted_at IS NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_facets AFTER UPDATE OF status, type, is_manual, has_content, deleted_at ON documents
    FOR EACH ROW
    WHEN ((OLD.status, OLD.type, OLD.is_manual, OLD.has_content, OLD.deleted_at)
          IS DISTINCT FROM (NEW.status, NEW.type, NEW.is_manual, NEW.has_content, NEW.deleted_at))
    EXECUTE FUNCTION follow_document_facets();

-- Events, written in the same transaction as the change they describe. The relay gives each
-- row its place in the stream (position) before publishing it; see docs/architecture.md.
CREATE TABLE outbox (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              uuid NOT NULL DEFAULT gen_random_uuid(),
    type            text NOT NULL,
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    document_id     uuid NOT NULL,
    occurred_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    position        bigint UNIQUE,
    published_at    timestamptz
);
CREATE INDEX outbox_unplaced_idx ON outbox (seq) WHERE position IS NULL;
CREATE INDEX outbox_unpublished_idx ON outbox (position) WHERE position IS NOT NULL AND published_at IS NULL;
CREATE INDEX outbox_published_idx ON outbox (published_at) WHERE published_at IS NOT NULL;

-- The last position handed out: positions are contiguous and never reused, even after old
-- outbox rows are removed.
CREATE TABLE outbox_relay (
    singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    last_position bigint NOT NULL
);
INSERT INTO outbox_relay (last_position) VALUES (0);

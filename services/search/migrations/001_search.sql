-- The search index: what the search service knows of each content document, and its chunks.
-- Filled from content events (services/search/indexer.py); never written by another part.

-- Every change to an organization's index takes the next number of this sequence, so a replica
-- holding an organization's vectors in memory asks "anything newer than n?" and loads only that.
CREATE SEQUENCE changes;

-- One row per document the index has seen. A deleted document keeps its row (`removed`, no
-- chunks), so a replica learns of the deletion through its change number.
CREATE TABLE documents (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    product_id uuid NOT NULL,
    status text NOT NULL,
    type text,
    title text NOT NULL,
    file_path text,
    source_url text,
    -- The document's own updatedAt (or deletedAt) when it was read: an older read never
    -- overwrites a newer one, whatever order two indexers finish in.
    source_version timestamptz NOT NULL,
    -- A digest of what the chunks are made of; an event that changed nothing of it re-embeds nothing.
    content_digest bytea,
    removed boolean NOT NULL DEFAULT false,
    indexed_at timestamptz NOT NULL,
    change bigint NOT NULL DEFAULT nextval('changes')
);

CREATE INDEX documents_organization_change ON documents (organization_id, change);

CREATE TABLE chunks (
    document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    chunk_index integer NOT NULL,
    organization_id uuid NOT NULL,
    content text NOT NULL,
    -- all-MiniLM-L6-v2's 384 float32 numbers, little-endian: the unit vector of the chunk.
    embedding bytea NOT NULL CHECK (octet_length(embedding) = 1536),
    lexemes tsvector NOT NULL,
    PRIMARY KEY (document_id, chunk_index)
);

-- Full-text matches, always scoped to one organization (btree_gin puts the uuid in the GIN index).
CREATE INDEX chunks_organization_lexemes ON chunks USING gin (organization_id, lexemes);

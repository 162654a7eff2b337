-- Personas, topics and prompt suggestions of a product. organization_id and product_id refer to
-- identity (the gateway's schema): no foreign key crosses schemas. Every query filters by
-- organization_id, so a row is only ever reached through its own organization.
-- clock_timestamp(), not now(): rows written in one transaction still get distinct, ordered
-- creation times, and lists are ordered by them. A new row's updated_at is its created_at, set
-- by a trigger: two clock_timestamp() defaults would differ by a microsecond.

CREATE FUNCTION updated_at_is_created_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := NEW.created_at;
    RETURN NEW;
END
$$;

CREATE TABLE personas (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    description     text NOT NULL CHECK (length(description) BETWEEN 1 AND 4000),
    system_prompt   text CHECK (length(system_prompt) <= 20000),
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL,
    deleted_at      timestamptz
);
CREATE TRIGGER personas_created BEFORE INSERT ON personas
    FOR EACH ROW EXECUTE FUNCTION updated_at_is_created_at();
-- A name is unique among a product's active personas, compared case-insensitively. This index
-- decides the 409, so two concurrent creates or renames can never both win; a soft delete
-- takes the row out of the index and frees the name.
CREATE UNIQUE INDEX personas_active_name_key ON personas (product_id, lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX personas_product_idx ON personas (organization_id, product_id, created_at, id) WHERE deleted_at IS NULL;

CREATE TABLE topics (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    description     text CHECK (length(description) BETWEEN 1 AND 4000),
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL,
    deleted_at      timestamptz
);
CREATE TRIGGER topics_created BEFORE INSERT ON topics
    FOR EACH ROW EXECUTE FUNCTION updated_at_is_created_at();
CREATE UNIQUE INDEX topics_active_name_key ON topics (product_id, lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX topics_product_idx ON topics (organization_id, product_id, created_at, id) WHERE deleted_at IS NULL;

CREATE TABLE prompt_suggestions (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    topic_id        uuid NOT NULL REFERENCES topics (id),
    persona_id      uuid REFERENCES personas (id),
    prompt          text NOT NULL CHECK (length(prompt) BETWEEN 1 AND 2000),
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL,
    deleted_at      timestamptz
);
CREATE TRIGGER prompt_suggestions_created BEFORE INSERT ON prompt_suggestions
    FOR EACH ROW EXECUTE FUNCTION updated_at_is_created_at();
-- A topic never holds the same live prompt twice: regeneration skips a generated prompt that
-- an accepted or rejected suggestion of the topic already has, rather than offering it again.
CREATE UNIQUE INDEX prompt_suggestions_live_prompt_key
    ON prompt_suggestions (topic_id, lower(prompt)) WHERE deleted_at IS NULL;
-- The list is one product's live suggestions in creation order, optionally by status or topic.
CREATE INDEX prompt_suggestions_product_idx
    ON prompt_suggestions (organization_id, product_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX prompt_suggestions_status_idx
    ON prompt_suggestions (organization_id, product_id, status, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX prompt_suggestions_topic_idx
    ON prompt_suggestions (organization_id, topic_id, created_at, id) WHERE deleted_at IS NULL;

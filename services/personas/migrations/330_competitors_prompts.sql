-- Competitors of a product and the prompts it tracks in AI engines.

-- The version of a product's competitor set: every change of one of its competitors (created,
-- renamed, given other aliases or domains, deleted) bumps it, in the transaction of the change
-- (a trigger, so no write path can forget it). Every analysis of an answer records the version
-- it was made under.
CREATE TABLE competitor_sets (
    product_id      uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    version         bigint NOT NULL,
    changed_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE competitors (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    aliases         text[] NOT NULL DEFAULT '{}' CHECK (cardinality(aliases) <= 20),
    domains         text[] NOT NULL DEFAULT '{}' CHECK (cardinality(domains) <= 50),
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL,
    deleted_at      timestamptz
);
CREATE TRIGGER competitors_created BEFORE INSERT ON competitors
    FOR EACH ROW EXECUTE FUNCTION updated_at_is_created_at();
CREATE UNIQUE INDEX competitors_active_name_key ON competitors (product_id, lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX competitors_product_idx ON competitors (organization_id, product_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL;

CREATE FUNCTION bump_competitor_set() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO competitor_sets AS sets (product_id, organization_id, version)
    VALUES (NEW.product_id, NEW.organization_id, 1)
    ON CONFLICT (product_id) DO UPDATE SET version = sets.version + 1, changed_at = clock_timestamp();
    RETURN NEW;
END;
$$;
CREATE TRIGGER competitors_bump_set AFTER INSERT OR UPDATE ON competitors
    FOR EACH ROW EXECUTE FUNCTION bump_competitor_set();

-- A tracked prompt: asked of AI engines on its cadence. `version` counts its text's edits; an
-- answer names the version it answered. `engines` empty: the product's default engines.
CREATE TABLE prompts (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    text            text NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
    topic_id        uuid REFERENCES topics (id),
    persona_id      uuid REFERENCES personas (id),
    suggestion_id   uuid REFERENCES prompt_suggestions (id),
    tags            text[] NOT NULL DEFAULT '{}' CHECK (cardinality(tags) <= 20),
    engines         text[] NOT NULL DEFAULT '{}',
    cadence         text NOT NULL DEFAULT 'daily' CHECK (cadence IN ('daily', 'weekly', 'manual')),
    samples         integer NOT NULL DEFAULT 1 CHECK (samples BETWEEN 1 AND 5),
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'archived')),
    version         integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL
);
CREATE TRIGGER prompts_created BEFORE INSERT ON prompts
    FOR EACH ROW EXECUTE FUNCTION updated_at_is_created_at();
-- A product tracks a text once among its prompts that are not archived.
CREATE UNIQUE INDEX prompts_live_text_key ON prompts (product_id, lower(text)) WHERE status <> 'archived';
-- A suggestion becomes at most one tracked prompt.
CREATE UNIQUE INDEX prompts_suggestion_key ON prompts (suggestion_id);
-- Lists: newest first, by product, optionally by status; tag and engine filters read the GIN index.
CREATE INDEX prompts_product_idx ON prompts (organization_id, product_id, created_at DESC, id DESC);
CREATE INDEX prompts_status_idx ON prompts (organization_id, product_id, status, created_at DESC, id DESC);
CREATE INDEX prompts_tags_idx ON prompts USING gin (tags);

-- Answers of AI engines and their analyses. organization_id, product_id, prompt_id and the
-- competitor ids refer to other parts' records: plain columns, no foreign key across schemas.
--
-- An answer never changes once stored (its text, citations and sources as the engine gave them);
-- its analysis may be made again (new rules, a changed brand or competitor set): each is a row
-- of `analyses`, and `answers.analysis_id` names the current one. The rows of `brand_mentions`
-- and `citations` repeat the dimensions a report groups by (engine, prompt, topic, time,
-- competitor-set version), so daily rollups are sums over them without a join.

CREATE TABLE answers (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id    uuid NOT NULL,
    product_id         uuid NOT NULL,
    -- The collector's own id of an answer sent to POST /api/v1/answers: a second send is the same answer.
    external_id        text CHECK (length(external_id) BETWEEN 1 AND 200),
    -- What was sent, hashed, so a second send with another body is told apart (409).
    body_sha256        bytea,
    source             text NOT NULL CHECK (source IN ('run', 'ingested')),
    run_id             uuid,
    prompt_id          uuid,
    prompt_version     integer,
    prompt_text        text NOT NULL CHECK (length(prompt_text) BETWEEN 1 AND 2000),
    topic_id           uuid,
    engine             text NOT NULL,
    model              text NOT NULL,
    status             text NOT NULL CHECK (status IN ('completed', 'failed', 'empty', 'refused')),
    text               text NOT NULL,
    citations          jsonb NOT NULL DEFAULT '[]',
    sources            jsonb NOT NULL DEFAULT '[]',
    input_tokens       integer,
    output_tokens      integer,
    cost_usd           numeric(14, 6),
    answered_at        timestamptz NOT NULL,
    created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    analysis_id        uuid,
    -- When the analysis is next tried (a brand or competitor read failed: later, with backoff).
    analyse_after      timestamptz NOT NULL DEFAULT '-infinity',
    analysis_attempts  integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX answers_external_id_key ON answers (organization_id, external_id);
CREATE INDEX answers_organization_idx ON answers (organization_id, answered_at DESC, id DESC);
CREATE INDEX answers_product_idx ON answers (organization_id, product_id, answered_at DESC, id DESC);
CREATE INDEX answers_prompt_idx ON answers (organization_id, prompt_id, answered_at DESC, id DESC)
    WHERE prompt_id IS NOT NULL;
CREATE INDEX answers_run_idx ON answers (run_id) WHERE run_id IS NOT NULL;
-- The analyser's queue: answers without an analysis, oldest first.
CREATE INDEX answers_unanalysed_idx ON answers (analyse_after, created_at) WHERE analysis_id IS NULL;

CREATE TABLE analyses (
    id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    answer_id              uuid NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
    organization_id        uuid NOT NULL,
    -- The rules' version (services/analytics/analysis/analyse.py, ANALYSIS_VERSION).
    version                integer NOT NULL,
    competitor_set_version bigint NOT NULL,
    -- The brand as it was looked for: name, aliases, domains.
    brand                  jsonb NOT NULL,
    created_at             timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX analyses_answer_idx ON analyses (answer_id, created_at DESC);

-- One row per analysis and brand it mentions: the product's own ("brand", competitor_id null) or
-- a competitor's.
CREATE TABLE brand_mentions (
    analysis_id            uuid NOT NULL REFERENCES analyses (id) ON DELETE CASCADE,
    brand_key              text NOT NULL,
    answer_id              uuid NOT NULL,
    organization_id        uuid NOT NULL,
    product_id             uuid NOT NULL,
    kind                   text NOT NULL CHECK (kind IN ('brand', 'competitor')),
    competitor_id          uuid,
    name                   text NOT NULL,
    mentions               integer NOT NULL CHECK (mentions > 0),
    first_offset           integer NOT NULL,
    position               integer NOT NULL CHECK (position > 0),
    list_rank              integer,
    bucket                 text NOT NULL CHECK (bucket IN ('top', 'middle', 'bottom')),
    sentiment_label        text NOT NULL CHECK (sentiment_label IN ('positive', 'neutral', 'negative')),
    sentiment_score        real NOT NULL,
    -- [{start, end, text, fuzzy}] in the answer's text, for highlighting.
    spans                  jsonb NOT NULL,
    engine                 text NOT NULL,
    prompt_id              uuid,
    topic_id               uuid,
    answered_at            timestamptz NOT NULL,
    competitor_set_version bigint NOT NULL,
    PRIMARY KEY (analysis_id, brand_key)
);
CREATE INDEX brand_mentions_competitor_idx ON brand_mentions (organization_id, competitor_id, answered_at DESC)
    WHERE competitor_id IS NOT NULL;
CREATE INDEX brand_mentions_brand_idx ON brand_mentions (organization_id, product_id, answered_at DESC)
    WHERE kind = 'brand';

CREATE TABLE citations (
    analysis_id     uuid NOT NULL REFERENCES analyses (id) ON DELETE CASCADE,
    ordinal         integer NOT NULL,
    answer_id       uuid NOT NULL,
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    url             text NOT NULL,
    host            text NOT NULL,
    domain          text NOT NULL,
    -- false: a page the engine retrieved but the answer did not cite.
    cited           boolean NOT NULL,
    classification  text NOT NULL CHECK (classification IN ('owned', 'competitor', 'third_party')),
    competitor_id   uuid,
    title           text,
    engine          text NOT NULL,
    prompt_id       uuid,
    topic_id        uuid,
    answered_at     timestamptz NOT NULL,
    PRIMARY KEY (analysis_id, ordinal)
);
CREATE INDEX citations_domain_idx ON citations (organization_id, domain, answered_at DESC);

-- Daily rollups of analysed answers: additive sums and counts only (ratios are computed when
-- read, services/analytics/metrics.py), moved by a trigger in the transaction that makes an
-- analysis an answer's current one (its previous analysis subtracted, the new one added), so no
-- writer, of this release or an older one still running, can forget them.
-- Only completed answers count. A day is the UTC date of `answered_at`. prompt_id and topic_id
-- may be null (an answer to an untracked prompt): one row for null, as for any value.

CREATE TABLE rollup_answers (
    organization_id        uuid NOT NULL,
    product_id             uuid NOT NULL,
    day                    date NOT NULL,
    engine                 text NOT NULL,
    prompt_id              uuid,
    topic_id               uuid,
    competitor_set_version bigint NOT NULL,
    answers                bigint NOT NULL,
    -- Answers citing at least one page, drawing on at least one page (cited or retrieved).
    citing_answers         bigint NOT NULL,
    drawing_answers        bigint NOT NULL,
    citations              bigint NOT NULL,
    pages                  bigint NOT NULL,
    CONSTRAINT rollup_answers_key UNIQUE NULLS NOT DISTINCT
        (organization_id, product_id, day, engine, prompt_id, topic_id, competitor_set_version)
);

-- A brand: the product's own ('brand') or a competitor (its id).
CREATE TABLE rollup_brands (
    organization_id        uuid NOT NULL,
    product_id             uuid NOT NULL,
    day                    date NOT NULL,
    engine                 text NOT NULL,
    prompt_id              uuid,
    topic_id               uuid,
    competitor_set_version bigint NOT NULL,
    brand_key              text NOT NULL,
    mentioning_answers     bigint NOT NULL,
    mentions               bigint NOT NULL,
    position_sum           bigint NOT NULL,
    -- numeric: sums of scores added and subtracted stay exact.
    sentiment_sum          numeric NOT NULL,
    positive               bigint NOT NULL,
    neutral                bigint NOT NULL,
    negative               bigint NOT NULL,
    -- Answers citing a page of the brand's domains (owned, or the competitor's).
    cited_answers          bigint NOT NULL,
    CONSTRAINT rollup_brands_key UNIQUE NULLS NOT DISTINCT
        (organization_id, product_id, day, engine, prompt_id, topic_id, competitor_set_version, brand_key)
);

CREATE TABLE rollup_domains (
    organization_id        uuid NOT NULL,
    product_id             uuid NOT NULL,
    day                    date NOT NULL,
    engine                 text NOT NULL,
    prompt_id              uuid,
    topic_id               uuid,
    competitor_set_version bigint NOT NULL,
    domain                 text NOT NULL,
    citing_answers         bigint NOT NULL,
    drawing_answers        bigint NOT NULL,
    citations              bigint NOT NULL,
    pages                  bigint NOT NULL,
    CONSTRAINT rollup_domains_key UNIQUE NULLS NOT DISTINCT
        (organization_id, product_id, day, engine, prompt_id, topic_id, competitor_set_version, domain)
);

-- What analyses add to the rollups, each times its sign (1 added, -1 taken away): the one
-- definition read by the move (rollup_apply) and by a rebuild from the raw rows.
CREATE FUNCTION rollup_chosen(ids uuid[], signs integer[])
RETURNS TABLE (analysis_id uuid, sign integer, organization_id uuid, product_id uuid, day date, engine text,
               prompt_id uuid, topic_id uuid, competitor_set_version bigint)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT c.analysis_id, c.sign, a.organization_id, a.product_id, (a.answered_at AT TIME ZONE 'UTC')::date,
           a.engine, a.prompt_id, a.topic_id, n.competitor_set_version
    FROM unnest(ids, signs) AS c (analysis_id, sign)
    JOIN analyses n ON n.id = c.analysis_id
    JOIN answers a ON a.id = n.answer_id AND a.status = 'completed'
$$;

CREATE FUNCTION rollup_answers_of(ids uuid[], signs integer[]) RETURNS SETOF rollup_answers
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT c.organization_id, c.product_id, c.day, c.engine, c.prompt_id, c.topic_id, c.competitor_set_version,
           sum(c.sign)::bigint, sum(c.sign * (p.citations > 0)::int)::bigint, sum(c.sign * (p.pages > 0)::int)::bigint,
           sum(c.sign * p.citations)::bigint, sum(c.sign * p.pages)::bigint
    FROM rollup_chosen(ids, signs) c
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE cited) AS citations, count(*) AS pages FROM citations WHERE analysis_id = c.analysis_id
    ) p
    GROUP BY 1, 2, 3, 4, 5, 6, 7
    ORDER BY 1, 2, 3, 4, 5, 6, 7
$$;

CREATE FUNCTION rollup_brands_of(ids uuid[], signs integer[]) RETURNS SETOF rollup_brands
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH facts AS (
        SELECT c.*, b.brand_key, 1 AS mentioning, b.mentions, b.position, b.sentiment_score::numeric AS score,
               b.sentiment_label AS label, 0 AS cited
        FROM rollup_chosen(ids, signs) c JOIN brand_mentions b ON b.analysis_id = c.analysis_id
        UNION ALL
        SELECT DISTINCT c.*, CASE p.classification WHEN 'owned' THEN 'brand' ELSE p.competitor_id::text END,
               0, 0, 0, 0::numeric, NULL, 1
        FROM rollup_chosen(ids, signs) c JOIN citations p ON p.analysis_id = c.analysis_id
        WHERE p.cited AND p.classification <> 'third_party'
    )
    SELECT organization_id, product_id, day, engine, prompt_id, topic_id, competitor_set_version, brand_key,
           sum(sign * mentioning)::bigint, sum(sign * mentions)::bigint, sum(sign * position)::bigint,
           sum(sign * score),
           sum(sign * coalesce(label = 'positive', false)::int)::bigint,
           sum(sign * coalesce(label = 'neutral', false)::int)::bigint,
           sum(sign * coalesce(label = 'negative', false)::int)::bigint,
           sum(sign * cited)::bigint
    FROM facts
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
$$;

CREATE FUNCTION rollup_domains_of(ids uuid[], signs integer[]) RETURNS SETOF rollup_domains
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH per_answer AS (
        SELECT c.sign, c.organization_id, c.product_id, c.day, c.engine, c.prompt_id, c.topic_id,
               c.competitor_set_version, p.domain, count(*) FILTER (WHERE p.cited) AS citations, count(*) AS pages
        FROM rollup_chosen(ids, signs) c JOIN citations p ON p.analysis_id = c.analysis_id
        GROUP BY c.analysis_id, c.sign, c.organization_id, c.product_id, c.day, c.engine, c.prompt_id, c.topic_id,
                 c.competitor_set_version, p.domain
    )
    SELECT organization_id, product_id, day, engine, prompt_id, topic_id, competitor_set_version, domain,
           sum(sign * (citations > 0)::int)::bigint, sum(sign)::bigint, sum(sign * citations)::bigint,
           sum(sign * pages)::bigint
    FROM per_answer
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
$$;

-- Adds the analyses `ids`, each times its sign, to the rollups.
CREATE FUNCTION rollup_apply(ids uuid[], signs integer[]) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
    INSERT INTO rollup_answers SELECT * FROM rollup_answers_of(ids, signs)
    ON CONFLICT ON CONSTRAINT rollup_answers_key DO UPDATE SET
        answers = rollup_answers.answers + EXCLUDED.answers,
        citing_answers = rollup_answers.citing_answers + EXCLUDED.citing_answers,
        drawing_answers = rollup_answers.drawing_answers + EXCLUDED.drawing_answers,
        citations = rollup_answers.citations + EXCLUDED.citations,
        pages = rollup_answers.pages + EXCLUDED.pages;
    INSERT INTO rollup_brands SELECT * FROM rollup_brands_of(ids, signs)
    ON CONFLICT ON CONSTRAINT rollup_brands_key DO UPDATE SET
        mentioning_answers = rollup_brands.mentioning_answers + EXCLUDED.mentioning_answers,
        mentions = rollup_brands.mentions + EXCLUDED.mentions,
        position_sum = rollup_brands.position_sum + EXCLUDED.position_sum,
        sentiment_sum = rollup_brands.sentiment_sum + EXCLUDED.sentiment_sum,
        positive = rollup_brands.positive + EXCLUDED.positive,
        neutral = rollup_brands.neutral + EXCLUDED.neutral,
        negative = rollup_brands.negative + EXCLUDED.negative,
        cited_answers = rollup_brands.cited_answers + EXCLUDED.cited_answers;
    INSERT INTO rollup_domains SELECT * FROM rollup_domains_of(ids, signs)
    ON CONFLICT ON CONSTRAINT rollup_domains_key DO UPDATE SET
        citing_answers = rollup_domains.citing_answers + EXCLUDED.citing_answers,
        drawing_answers = rollup_domains.drawing_answers + EXCLUDED.drawing_answers,
        citations = rollup_domains.citations + EXCLUDED.citations,
        pages = rollup_domains.pages + EXCLUDED.pages;
$$;

-- A statement's changes of answers' current analyses, moved at once: one statement for a batch
-- of analyses locks the rollup rows it shares with another in one order (rollup_apply's sorted
-- inserts), so concurrent analysers wait for one another and never deadlock.
CREATE FUNCTION answers_move_rollups() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM rollup_apply(coalesce(array_agg(moved.analysis_id), '{}'), coalesce(array_agg(moved.sign), '{}'))
    FROM (
        SELECT o.analysis_id, -1 AS sign FROM old_answers o JOIN new_answers n ON n.id = o.id
        WHERE o.analysis_id IS NOT NULL AND o.analysis_id IS DISTINCT FROM n.analysis_id
        UNION ALL
        SELECT n.analysis_id, 1 FROM old_answers o JOIN new_answers n ON n.id = o.id
        WHERE n.analysis_id IS NOT NULL AND o.analysis_id IS DISTINCT FROM n.analysis_id
    ) moved;
    RETURN NULL;
END
$$;

CREATE TRIGGER answers_move_rollups AFTER UPDATE ON answers
REFERENCING OLD TABLE AS old_answers NEW TABLE AS new_answers
FOR EACH STATEMENT EXECUTE FUNCTION answers_move_rollups();

-- The answers analysed before the rollups existed.
SELECT rollup_apply(coalesce(array_agg(analysis_id), '{}'), coalesce(array_agg(1), '{}'))
FROM answers WHERE analysis_id IS NOT NULL;

-- Hourly rollups: the same sums as the daily rollups by UTC hour, read by the reports whose days are
-- in another named zone (services/analytics/report_sources.py, rollup_*_in below): a day of a zone
-- whose midnights are whole UTC hours is a set of whole UTC hours, whatever its offset that day
-- (summer time included). What an analysis adds stays one definition per table (rollup_*_of), now
-- by hour: the move adds it to the hourly rollups and, summed by UTC day, to the daily ones, in the
-- same statement.

CREATE TABLE rollup_answers_hourly (
    organization_id        uuid NOT NULL,
    product_id             uuid NOT NULL,
    hour                   timestamptz NOT NULL,
    engine                 text NOT NULL,
    prompt_id              uuid,
    topic_id               uuid,
    competitor_set_version bigint NOT NULL,
    answers                bigint NOT NULL,
    citing_answers         bigint NOT NULL,
    drawing_answers        bigint NOT NULL,
    citations              bigint NOT NULL,
    pages                  bigint NOT NULL,
    CONSTRAINT rollup_answers_hourly_key UNIQUE NULLS NOT DISTINCT
        (organization_id, product_id, hour, engine, prompt_id, topic_id, competitor_set_version)
);

CREATE TABLE rollup_brands_hourly (
    organization_id        uuid NOT NULL,
    product_id             uuid NOT NULL,
    hour                   timestamptz NOT NULL,
    engine                 text NOT NULL,
    prompt_id              uuid,
    topic_id               uuid,
    competitor_set_version bigint NOT NULL,
    brand_key              text NOT NULL,
    mentioning_answers     bigint NOT NULL,
    mentions               bigint NOT NULL,
    position_sum           bigint NOT NULL,
    sentiment_sum          numeric NOT NULL,
    positive               bigint NOT NULL,
    neutral                bigint NOT NULL,
    negative               bigint NOT NULL,
    cited_answers          bigint NOT NULL,
    CONSTRAINT rollup_brands_hourly_key UNIQUE NULLS NOT DISTINCT
        (organization_id, product_id, hour, engine, prompt_id, topic_id, competitor_set_version, brand_key)
);

CREATE TABLE rollup_domains_hourly (
    organization_id        uuid NOT NULL,
    product_id             uuid NOT NULL,
    hour                   timestamptz NOT NULL,
    engine                 text NOT NULL,
    prompt_id              uuid,
    topic_id               uuid,
    competitor_set_version bigint NOT NULL,
    domain                 text NOT NULL,
    citing_answers         bigint NOT NULL,
    drawing_answers        bigint NOT NULL,
    citations              bigint NOT NULL,
    pages                  bigint NOT NULL,
    CONSTRAINT rollup_domains_hourly_key UNIQUE NULLS NOT DISTINCT
        (organization_id, product_id, hour, engine, prompt_id, topic_id, competitor_set_version, domain)
);

-- The definitions change their row type (an hour where a day was): dropped and made again, with
-- the same sums.
DROP FUNCTION rollup_answers_of(uuid[], integer[]);
DROP FUNCTION rollup_brands_of(uuid[], integer[]);
DROP FUNCTION rollup_domains_of(uuid[], integer[]);
DROP FUNCTION rollup_chosen(uuid[], integer[]);

-- An analysis's hour: the hour of `answered_at` in UTC, or, in a report's transaction that set
-- `analytics.report_zone` (migrations/005_report_zones.sql), the hour in that zone, which lies in
-- one day of that zone even where the zone's midnights are not whole UTC hours: a report reads the
-- raw rows of such hours through these definitions and takes their day from this hour.
CREATE FUNCTION rollup_chosen(ids uuid[], signs integer[])
RETURNS TABLE (analysis_id uuid, sign integer, organization_id uuid, product_id uuid, hour timestamptz, engine text,
               prompt_id uuid, topic_id uuid, competitor_set_version bigint)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT c.analysis_id, c.sign, a.organization_id, a.product_id,
           date_trunc('hour', a.answered_at, coalesce(nullif(current_setting('analytics.report_zone', true), ''), 'UTC')),
           a.engine, a.prompt_id, a.topic_id, n.competitor_set_version
    FROM unnest(ids, signs) AS c (analysis_id, sign)
    JOIN analyses n ON n.id = c.analysis_id
    JOIN answers a ON a.id = n.answer_id AND a.status = 'completed'
$$;

CREATE FUNCTION rollup_answers_of(ids uuid[], signs integer[]) RETURNS SETOF rollup_answers_hourly
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT c.organization_id, c.product_id, c.hour, c.engine, c.prompt_id, c.topic_id, c.competitor_set_version,
           sum(c.sign)::bigint, sum(c.sign * (p.citations > 0)::int)::bigint, sum(c.sign * (p.pages > 0)::int)::bigint,
           sum(c.sign * p.citations)::bigint, sum(c.sign * p.pages)::bigint
    FROM rollup_chosen(ids, signs) c
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE cited) AS citations, count(*) AS pages FROM citations WHERE analysis_id = c.analysis_id
    ) p
    GROUP BY 1, 2, 3, 4, 5, 6, 7
    ORDER BY 1, 2, 3, 4, 5, 6, 7
$$;

CREATE FUNCTION rollup_brands_of(ids uuid[], signs integer[]) RETURNS SETOF rollup_brands_hourly
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
    SELECT organization_id, product_id, hour, engine, prompt_id, topic_id, competitor_set_version, brand_key,
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

CREATE FUNCTION rollup_domains_of(ids uuid[], signs integer[]) RETURNS SETOF rollup_domains_hourly
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH per_answer AS (
        SELECT c.sign, c.organization_id, c.product_id, c.hour, c.engine, c.prompt_id, c.topic_id,
               c.competitor_set_version, p.domain, count(*) FILTER (WHERE p.cited) AS citations, count(*) AS pages
        FROM rollup_chosen(ids, signs) c JOIN citations p ON p.analysis_id = c.analysis_id
        GROUP BY c.analysis_id, c.sign, c.organization_id, c.product_id, c.hour, c.engine, c.prompt_id, c.topic_id,
                 c.competitor_set_version, p.domain
    )
    SELECT organization_id, product_id, hour, engine, prompt_id, topic_id, competitor_set_version, domain,
           sum(sign * (citations > 0)::int)::bigint, sum(sign)::bigint, sum(sign * citations)::bigint,
           sum(sign * pages)::bigint
    FROM per_answer
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
$$;

-- Adds the analyses `ids`, each times its sign, to the hourly rollups and, their hours summed by
-- UTC day, to the daily ones: each definition computed once (`moved`), both tables in sorted
-- order, in the order of this statement's plan, the same for every caller.
CREATE OR REPLACE FUNCTION rollup_apply(ids uuid[], signs integer[]) RETURNS void
LANGUAGE sql SET search_path FROM CURRENT AS $$
    WITH moved AS (SELECT * FROM rollup_answers_of(ids, signs)),
    hourly AS (
        INSERT INTO rollup_answers_hourly SELECT * FROM moved
        ON CONFLICT ON CONSTRAINT rollup_answers_hourly_key DO UPDATE SET
            answers = rollup_answers_hourly.answers + EXCLUDED.answers,
            citing_answers = rollup_answers_hourly.citing_answers + EXCLUDED.citing_answers,
            drawing_answers = rollup_answers_hourly.drawing_answers + EXCLUDED.drawing_answers,
            citations = rollup_answers_hourly.citations + EXCLUDED.citations,
            pages = rollup_answers_hourly.pages + EXCLUDED.pages
    )
    INSERT INTO rollup_answers
    SELECT organization_id, product_id, (hour AT TIME ZONE 'UTC')::date, engine, prompt_id, topic_id,
           competitor_set_version, sum(answers), sum(citing_answers), sum(drawing_answers), sum(citations), sum(pages)
    FROM moved
    GROUP BY 1, 2, 3, 4, 5, 6, 7
    ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT ON CONSTRAINT rollup_answers_key DO UPDATE SET
        answers = rollup_answers.answers + EXCLUDED.answers,
        citing_answers = rollup_answers.citing_answers + EXCLUDED.citing_answers,
        drawing_answers = rollup_answers.drawing_answers + EXCLUDED.drawing_answers,
        citations = rollup_answers.citations + EXCLUDED.citations,
        pages = rollup_answers.pages + EXCLUDED.pages;

    WITH moved AS (SELECT * FROM rollup_brands_of(ids, signs)),
    hourly AS (
        INSERT INTO rollup_brands_hourly SELECT * FROM moved
        ON CONFLICT ON CONSTRAINT rollup_brands_hourly_key DO UPDATE SET
            mentioning_answers = rollup_brands_hourly.mentioning_answers + EXCLUDED.mentioning_answers,
            mentions = rollup_brands_hourly.mentions + EXCLUDED.mentions,
            position_sum = rollup_brands_hourly.position_sum + EXCLUDED.position_sum,
            sentiment_sum = rollup_brands_hourly.sentiment_sum + EXCLUDED.sentiment_sum,
            positive = rollup_brands_hourly.positive + EXCLUDED.positive,
            neutral = rollup_brands_hourly.neutral + EXCLUDED.neutral,
            negative = rollup_brands_hourly.negative + EXCLUDED.negative,
            cited_answers = rollup_brands_hourly.cited_answers + EXCLUDED.cited_answers
    )
    INSERT INTO rollup_brands
    SELECT organization_id, product_id, (hour AT TIME ZONE 'UTC')::date, engine, prompt_id, topic_id,
           competitor_set_version, brand_key, sum(mentioning_answers), sum(mentions), sum(position_sum),
           sum(sentiment_sum), sum(positive), sum(neutral), sum(negative), sum(cited_answers)
    FROM moved
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT ON CONSTRAINT rollup_brands_key DO UPDATE SET
        mentioning_answers = rollup_brands.mentioning_answers + EXCLUDED.mentioning_answers,
        mentions = rollup_brands.mentions + EXCLUDED.mentions,
        position_sum = rollup_brands.position_sum + EXCLUDED.position_sum,
        sentiment_sum = rollup_brands.sentiment_sum + EXCLUDED.sentiment_sum,
        positive = rollup_brands.positive + EXCLUDED.positive,
        neutral = rollup_brands.neutral + EXCLUDED.neutral,
        negative = rollup_brands.negative + EXCLUDED.negative,
        cited_answers = rollup_brands.cited_answers + EXCLUDED.cited_answers;

    WITH moved AS (SELECT * FROM rollup_domains_of(ids, signs)),
    hourly AS (
        INSERT INTO rollup_domains_hourly SELECT * FROM moved
        ON CONFLICT ON CONSTRAINT rollup_domains_hourly_key DO UPDATE SET
            citing_answers = rollup_domains_hourly.citing_answers + EXCLUDED.citing_answers,
            drawing_answers = rollup_domains_hourly.drawing_answers + EXCLUDED.drawing_answers,
            citations = rollup_domains_hourly.citations + EXCLUDED.citations,
            pages = rollup_domains_hourly.pages + EXCLUDED.pages
    )
    INSERT INTO rollup_domains
    SELECT organization_id, product_id, (hour AT TIME ZONE 'UTC')::date, engine, prompt_id, topic_id,
           competitor_set_version, domain, sum(citing_answers), sum(drawing_answers), sum(citations), sum(pages)
    FROM moved
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT ON CONSTRAINT rollup_domains_key DO UPDATE SET
        citing_answers = rollup_domains.citing_answers + EXCLUDED.citing_answers,
        drawing_answers = rollup_domains.drawing_answers + EXCLUDED.drawing_answers,
        citations = rollup_domains.citations + EXCLUDED.citations,
        pages = rollup_domains.pages + EXCLUDED.pages;
$$;

-- How the days `[since, until)` of a zone (`since` and `until` its midnights) are read from the
-- rollups: each UTC day they touch from the daily rollups, counted on the zone's day of its noon
-- ('day'); each hour of it that lies in another day of the zone (most hours of a zone a few hours
-- from UTC lie in the day of the noon) taken away from that day and added to its own, from the
-- hourly rollups ('hour', sign -1 and +1); an hour a midnight of the zone falls inside (a zone a
-- fraction of an hour from UTC: one a day) taken away likewise and read from the raw rows ('raw').
-- Only what lands on the period's days is listed. Summer time moves the hours, not the method.
CREATE FUNCTION rollup_zone_parts(since timestamptz, until timestamptz, zone text)
RETURNS TABLE (part text, utc_day date, hour timestamptz, day date, sign integer)
LANGUAGE sql STABLE SET search_path FROM CURRENT ROWS 100 AS $$
    WITH period AS (
        SELECT (since AT TIME ZONE zone)::date AS first_day, (until AT TIME ZONE zone)::date AS end_day
    ),
    days AS (
        SELECT d AS start, (d AT TIME ZONE 'UTC')::date AS utc_day,
               ((d + interval '12 hours') AT TIME ZONE zone)::date AS day
        FROM generate_series(date_trunc('day', since, 'UTC'), until - interval '1 microsecond', interval '24 hours') AS d
    ),
    hours AS (
        SELECT days.utc_day, days.day, h.hour, (h.hour AT TIME ZONE zone)::date AS own_day,
               (h.hour AT TIME ZONE zone)::date
               <> ((h.hour + interval '1 hour' - interval '1 microsecond') AT TIME ZONE zone)::date AS split
        FROM days, generate_series(0, 23) AS n, LATERAL (SELECT days.start + n * interval '1 hour' AS hour) h
    )
    SELECT 'day', utc_day, NULL::timestamptz, day, 1 FROM days, period
    WHERE day >= first_day AND day < end_day
    UNION ALL
    SELECT 'hour', utc_day, hour, day, -1 FROM hours, period
    WHERE (own_day <> day OR split) AND day >= first_day AND day < end_day
    UNION ALL
    SELECT 'hour', utc_day, hour, own_day, 1 FROM hours, period
    WHERE own_day <> day AND NOT split AND own_day >= first_day AND own_day < end_day
    UNION ALL
    SELECT 'raw', utc_day, hour, NULL, 1 FROM hours
    WHERE split AND hour < until AND hour + interval '1 hour' > since
$$;

-- The analyses current for the product's answers of [since, until) answered in the hours
-- rollup_zone_parts reads from the raw rows.
CREATE FUNCTION rollup_zone_raw(organization uuid, product uuid, since timestamptz, until timestamptz, zone text)
RETURNS uuid[]
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT coalesce(array_agg(a.analysis_id), '{}')
    FROM rollup_zone_parts(since, until, zone) p
    JOIN answers a ON a.answered_at >= p.hour AND a.answered_at < p.hour + interval '1 hour'
    WHERE p.part = 'raw' AND a.organization_id = organization AND a.product_id = product
      AND a.analysis_id IS NOT NULL AND a.answered_at >= since AND a.answered_at < until
$$;

-- The rollup rows of a product's days [since, until) in `zone` (each its day there), summed from
-- the parts above (rows summing to nothing left out, as none is read from the raw rows); a
-- report's transaction sets `analytics.report_zone` to `zone` (the raw hours' days).
CREATE FUNCTION rollup_answers_in(organization uuid, product uuid, since timestamptz, until timestamptz, zone text)
RETURNS SETOF rollup_answers
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH parts AS (SELECT * FROM rollup_zone_parts(since, until, zone)),
    counted AS (
        SELECT p.day, p.sign, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version,
               r.answers, r.citing_answers, r.drawing_answers, r.citations, r.pages
        FROM parts p JOIN rollup_answers r
          ON p.part = 'day' AND r.organization_id = organization AND r.product_id = product AND r.day = p.utc_day
        UNION ALL
        SELECT p.day, p.sign, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version,
               r.answers, r.citing_answers, r.drawing_answers, r.citations, r.pages
        FROM parts p JOIN rollup_answers_hourly r
          ON p.part = 'hour' AND r.organization_id = organization AND r.product_id = product AND r.hour = p.hour
        UNION ALL
        SELECT (r.hour AT TIME ZONE zone)::date, 1, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version,
               r.answers, r.citing_answers, r.drawing_answers, r.citations, r.pages
        FROM rollup_zone_raw(organization, product, since, until, zone) AS ids,
             rollup_answers_of(ids, array_fill(1, ARRAY[cardinality(ids)])) r
        WHERE cardinality(ids) > 0
    )
    SELECT organization, product, day, engine, prompt_id, topic_id, competitor_set_version,
           sum(sign * answers)::bigint, sum(sign * citing_answers)::bigint, sum(sign * drawing_answers)::bigint,
           sum(sign * citations)::bigint, sum(sign * pages)::bigint
    FROM counted
    GROUP BY day, engine, prompt_id, topic_id, competitor_set_version
    HAVING sum(sign * answers) <> 0
$$;

CREATE FUNCTION rollup_brands_in(organization uuid, product uuid, since timestamptz, until timestamptz, zone text)
RETURNS SETOF rollup_brands
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH parts AS (SELECT * FROM rollup_zone_parts(since, until, zone)),
    counted AS (
        SELECT p.day, p.sign, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version, r.brand_key,
               r.mentioning_answers, r.mentions, r.position_sum, r.sentiment_sum, r.positive, r.neutral, r.negative,
               r.cited_answers
        FROM parts p JOIN rollup_brands r
          ON p.part = 'day' AND r.organization_id = organization AND r.product_id = product AND r.day = p.utc_day
        UNION ALL
        SELECT p.day, p.sign, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version, r.brand_key,
               r.mentioning_answers, r.mentions, r.position_sum, r.sentiment_sum, r.positive, r.neutral, r.negative,
               r.cited_answers
        FROM parts p JOIN rollup_brands_hourly r
          ON p.part = 'hour' AND r.organization_id = organization AND r.product_id = product AND r.hour = p.hour
        UNION ALL
        SELECT (r.hour AT TIME ZONE zone)::date, 1, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version,
               r.brand_key, r.mentioning_answers, r.mentions, r.position_sum, r.sentiment_sum, r.positive, r.neutral,
               r.negative, r.cited_answers
        FROM rollup_zone_raw(organization, product, since, until, zone) AS ids,
             rollup_brands_of(ids, array_fill(1, ARRAY[cardinality(ids)])) r
        WHERE cardinality(ids) > 0
    )
    SELECT organization, product, day, engine, prompt_id, topic_id, competitor_set_version, brand_key,
           sum(sign * mentioning_answers)::bigint, sum(sign * mentions)::bigint, sum(sign * position_sum)::bigint,
           sum(sign * sentiment_sum), sum(sign * positive)::bigint, sum(sign * neutral)::bigint,
           sum(sign * negative)::bigint, sum(sign * cited_answers)::bigint
    FROM counted
    GROUP BY day, engine, prompt_id, topic_id, competitor_set_version, brand_key
    HAVING sum(sign * mentioning_answers) <> 0 OR sum(sign * cited_answers) <> 0
$$;

CREATE FUNCTION rollup_domains_in(organization uuid, product uuid, since timestamptz, until timestamptz, zone text)
RETURNS SETOF rollup_domains
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    WITH parts AS (SELECT * FROM rollup_zone_parts(since, until, zone)),
    counted AS (
        SELECT p.day, p.sign, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version, r.domain,
               r.citing_answers, r.drawing_answers, r.citations, r.pages
        FROM parts p JOIN rollup_domains r
          ON p.part = 'day' AND r.organization_id = organization AND r.product_id = product AND r.day = p.utc_day
        UNION ALL
        SELECT p.day, p.sign, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version, r.domain,
               r.citing_answers, r.drawing_answers, r.citations, r.pages
        FROM parts p JOIN rollup_domains_hourly r
          ON p.part = 'hour' AND r.organization_id = organization AND r.product_id = product AND r.hour = p.hour
        UNION ALL
        SELECT (r.hour AT TIME ZONE zone)::date, 1, r.engine, r.prompt_id, r.topic_id, r.competitor_set_version,
               r.domain, r.citing_answers, r.drawing_answers, r.citations, r.pages
        FROM rollup_zone_raw(organization, product, since, until, zone) AS ids,
             rollup_domains_of(ids, array_fill(1, ARRAY[cardinality(ids)])) r
        WHERE cardinality(ids) > 0
    )
    SELECT organization, product, day, engine, prompt_id, topic_id, competitor_set_version, domain,
           sum(sign * citing_answers)::bigint, sum(sign * drawing_answers)::bigint, sum(sign * citations)::bigint,
           sum(sign * pages)::bigint
    FROM counted
    GROUP BY day, engine, prompt_id, topic_id, competitor_set_version, domain
    HAVING sum(sign * drawing_answers) <> 0
$$;

-- The hourly rollups of the answers analysed so far, from the raw rows by the definitions above
-- (the daily rollups already hold them).
DO $$
DECLARE
    ids uuid[];
    signs integer[];
BEGIN
    SELECT coalesce(array_agg(analysis_id), '{}'), coalesce(array_agg(1), '{}') INTO ids, signs
    FROM answers WHERE analysis_id IS NOT NULL;
    INSERT INTO rollup_answers_hourly SELECT * FROM rollup_answers_of(ids, signs);
    INSERT INTO rollup_brands_hourly SELECT * FROM rollup_brands_of(ids, signs);
    INSERT INTO rollup_domains_hourly SELECT * FROM rollup_domains_of(ids, signs);
END
$$;

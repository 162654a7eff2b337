-- A report in a named time zone reads the same sums from the raw rows, with its days in that zone:
-- what an analysis adds (rollup_chosen, read by the move and by every rebuild) takes the day of
-- `answered_at` in the zone of the transaction's `analytics.report_zone` setting, which only those
-- reads set, for their own transaction (set_config(..., true)). The writers never set it: the
-- rollups stay by UTC day.
CREATE OR REPLACE FUNCTION rollup_chosen(ids uuid[], signs integer[])
RETURNS TABLE (analysis_id uuid, sign integer, organization_id uuid, product_id uuid, day date, engine text,
               prompt_id uuid, topic_id uuid, competitor_set_version bigint)
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
    SELECT c.analysis_id, c.sign, a.organization_id, a.product_id,
           (a.answered_at AT TIME ZONE coalesce(nullif(current_setting('analytics.report_zone', true), ''), 'UTC'))::date,
           a.engine, a.prompt_id, a.topic_id, n.competitor_set_version
    FROM unnest(ids, signs) AS c (analysis_id, sign)
    JOIN analyses n ON n.id = c.analysis_id
    JOIN answers a ON a.id = n.answer_id AND a.status = 'completed'
$$;

-- Prompt runs: tracked prompts asked of engines, each (prompt, engine, sample) a task whose
-- answer is stored in `answers` (source 'run'). A task is leased by one worker of any replica at
-- a time (`leased_until`); a worker that dies lets its lease lapse and another takes the task.

CREATE TABLE prompt_runs (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    -- 'manual': POST /api/v1/prompt-runs; 'schedule': a prompt's cadence.
    trigger         text NOT NULL CHECK (trigger IN ('manual', 'schedule')),
    status          text NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'running', 'completed', 'partial', 'failed', 'cancelled')),
    prompt_ids      uuid[] NOT NULL,
    engines         text[] NOT NULL,
    samples         integer NOT NULL CHECK (samples BETWEEN 1 AND 5),
    tasks_total     integer NOT NULL,
    tasks_done      integer NOT NULL DEFAULT 0,
    tasks_failed    integer NOT NULL DEFAULT 0,
    input_tokens    bigint NOT NULL DEFAULT 0,
    output_tokens   bigint NOT NULL DEFAULT 0,
    cost_usd        numeric(14, 6) NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    started_at      timestamptz,
    finished_at     timestamptz
);
CREATE INDEX prompt_runs_organization_idx ON prompt_runs (organization_id, created_at DESC, id DESC);
CREATE INDEX prompt_runs_product_idx ON prompt_runs (organization_id, product_id, created_at DESC, id DESC);

CREATE TABLE run_tasks (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    run_id          uuid NOT NULL REFERENCES prompt_runs (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL,
    product_id      uuid NOT NULL,
    prompt_id       uuid NOT NULL,
    prompt_version  integer NOT NULL,
    prompt_text     text NOT NULL,
    topic_id        uuid,
    engine          text NOT NULL,
    sample          integer NOT NULL,
    status          text NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    attempts        integer NOT NULL DEFAULT 0,
    leased_until    timestamptz,
    error           text,
    answer_id       uuid REFERENCES answers (id),
    UNIQUE (run_id, prompt_id, engine, sample)
);
-- The workers' queue: tasks waiting, or running on a lapsed lease.
CREATE INDEX run_tasks_queue_idx ON run_tasks (engine, leased_until) WHERE status IN ('queued', 'running');

-- A prompt's cadence runs it once a period (a day, an ISO week) whatever the number of replicas:
-- the scheduler that inserts the period's row is the one that creates its run.
CREATE TABLE scheduled_periods (
    prompt_id  uuid NOT NULL,
    period     text NOT NULL,
    run_id     uuid NOT NULL REFERENCES prompt_runs (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (prompt_id, period)
);

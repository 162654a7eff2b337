-- Runnable simulations: a task says what an agent is asked of which App and how its answer is
-- judged; runs are queued here and taken by the part's workers (services/simulations/queue.py);
-- each run keeps its trajectory as steps.

ALTER TABLE tasks
    ADD COLUMN goal text,
    ADD COLUMN app_id uuid,
    ADD COLUMN criteria jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN reference_answer text,
    ADD COLUMN step_budget integer NOT NULL DEFAULT 8 CHECK (step_budget BETWEEN 1 AND 100),
    ADD COLUMN rerun_on_change boolean NOT NULL DEFAULT false;
-- The organization's live tasks, newest first (the list), and the ones a content change re-runs.
CREATE INDEX tasks_recent_idx ON tasks (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX tasks_rerun_idx ON tasks (organization_id) WHERE rerun_on_change AND deleted_at IS NULL;
CREATE INDEX environments_recent_idx ON environments (organization_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL;

ALTER TABLE runs
    -- Which trial of the request it is (1…trials), and the seed it ran with (the environment's + trial - 1).
    ADD COLUMN trial integer,
    ADD COLUMN seed bigint,
    -- What queued it: `api` (a request) or `content_change` (a task's re-run setting).
    ADD COLUMN trigger text,
    -- The queue: how many times a worker took it, which one holds it and until when.
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN worker text,
    ADD COLUMN lease_until timestamptz;
-- The queue in arrival order, and the runs whose lease may lapse.
CREATE INDEX runs_queued_idx ON runs (created_at, id) WHERE status = 'queued' AND deleted_at IS NULL;
CREATE INDEX runs_running_idx ON runs (organization_id, lease_until) WHERE status = 'running';

-- A run's trajectory: every check, fetch, ranking, read and answer, in order. A run taken again
-- after its worker was lost starts a new attempt; only the current attempt's steps are shown.
CREATE TABLE run_steps (
    run_id      uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    attempt     integer NOT NULL,
    seq         integer NOT NULL,
    kind        text NOT NULL,
    name        text NOT NULL,
    url         text,
    status      integer,
    bytes       bigint NOT NULL DEFAULT 0,
    tokens      integer NOT NULL DEFAULT 0,
    ok          boolean,
    detail      jsonb NOT NULL DEFAULT '{}',
    elapsed_ms  double precision NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (run_id, attempt, seq)
);

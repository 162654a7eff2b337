-- Agent-simulation tasks, environments and runs, each belonging to one organization.
-- organization_id refers to identity.organizations, owned by the gateway: no foreign key
-- crosses schemas, so each part can be migrated and scaled on its own.

CREATE TABLE tasks (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    name            text NOT NULL,
    category        text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    deleted_at      timestamptz
);
CREATE INDEX tasks_organization_idx ON tasks (organization_id) WHERE deleted_at IS NULL;

CREATE TABLE environments (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    task_id         uuid NOT NULL REFERENCES tasks (id),
    name            text NOT NULL,
    agent_config    jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    deleted_at      timestamptz
);
CREATE INDEX environments_organization_idx ON environments (organization_id) WHERE deleted_at IS NULL;
CREATE INDEX environments_task_idx ON environments (task_id);

CREATE TABLE runs (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id  uuid NOT NULL,
    environment_id   uuid NOT NULL REFERENCES environments (id),
    task_id          uuid NOT NULL REFERENCES tasks (id),
    status           text NOT NULL,
    sandbox_id       text,
    sandbox_snapshot text,
    overall_score    double precision,
    passed           boolean,
    tokens_used      bigint CHECK (tokens_used >= 0),
    cost_usd         double precision CHECK (cost_usd >= 0),
    started_at       timestamptz,
    completed_at     timestamptz,
    duration         double precision CHECK (duration >= 0),
    volume_ids       jsonb,
    log_s3_keys      jsonb,
    metadata         jsonb,
    -- clock_timestamp(), not now(): runs recorded in one transaction still get distinct,
    -- ordered creation times, and the list is ordered by them.
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at       timestamptz
);
-- The list is always one organization's live runs, newest first; each filter has an index
-- that keeps that order, so a filtered page is an index range scan.
CREATE INDEX runs_recent_idx ON runs (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX runs_status_idx ON runs (organization_id, status, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX runs_environment_idx ON runs (organization_id, environment_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX runs_task_idx ON runs (organization_id, task_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX runs_passed_idx ON runs (organization_id, passed, created_at DESC) WHERE deleted_at IS NULL;

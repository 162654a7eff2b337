"""Request and response shapes of runs, and the answers of the runner's intake (POST /internal/tasks,
/internal/environments, /internal/runs; their bodies: libs/contract/internal_bodies.py).

The response schemas serialise the answers through their shapes (shapes.py): no marshmallow on
the hot path, and nothing restates their fields.
"""

from __future__ import annotations

from marshmallow import fields, validate

from libs.common.schemas import Timestamps
from libs.contract.api_schema import ApiSchema
from libs.contract.internal_bodies import RUN_STATUS_MAX
from libs.contract.validators import (
    QueryBoolean,
    UtcDateTime,
    UuidString,
    length,
)

MAX_LIMIT = 200
# Far past any real list, and well inside PostgreSQL's bigint, which a larger OFFSET overflows.
MAX_OFFSET = 1_000_000_000
DEFAULT_LIMIT = 50


class RunListQuery(ApiSchema):
    status = fields.String(validate=length(1, RUN_STATUS_MAX), metadata={"example": "completed"})
    environment_id = UuidString()
    task_id = UuidString()
    passed = QueryBoolean()
    created_from = UtcDateTime(
        data_key="from", metadata={"description": "Only runs created at or after this time (ISO 8601, with a zone)."}
    )
    created_to = UtcDateTime(
        data_key="to", metadata={"description": "Only runs created before this time (ISO 8601, with a zone)."}
    )
    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(min=1, max=MAX_LIMIT))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_OFFSET))


class TaskRef(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    category = fields.String(required=True)


class EnvironmentRef(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    agent_config = fields.Raw(required=True, allow_none=True)
    task = fields.Nested(TaskRef, required=True)


class Run(Timestamps):
    id = fields.String(required=True)
    environment_id = fields.String(required=True)
    task_id = fields.String(required=True)
    organization_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"example": "completed"})
    sandbox_id = fields.String(required=True, allow_none=True)
    sandbox_snapshot = fields.String(required=True, allow_none=True)
    overall_score = fields.Float(required=True, allow_none=True)
    passed = fields.Boolean(required=True, allow_none=True)
    tokens_used = fields.Float(required=True, allow_none=True)
    cost_usd = fields.Float(required=True, allow_none=True)
    started_at = fields.DateTime(required=True, allow_none=True)
    completed_at = fields.DateTime(required=True, allow_none=True)
    duration = fields.Float(required=True, allow_none=True)
    volume_ids = fields.Raw(required=True, allow_none=True)
    log_s3_keys = fields.Raw(required=True, allow_none=True)
    metadata = fields.Raw(required=True, allow_none=True)
    environment = fields.Nested(EnvironmentRef, required=True)
    task = fields.Nested(TaskRef, required=True)


class RunList(ApiSchema):
    runs = fields.List(fields.Nested(Run), required=True)
    total = fields.Integer(required=True)


class RecordedTask(TaskRef):
    """A task as the intake answers it."""

    organization_id = fields.String(required=True)


class RecordedEnvironment(EnvironmentRef):
    """An environment, with its task, as the intake answers it."""

    organization_id = fields.String(required=True)

"""Request and answer shapes of tasks, environments, run requests, steps and analytics."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from libs.common.cursors import PageCursor
from libs.common.schemas import Ratio
from libs.contract.api_schema import ApiSchema
from libs.contract.internal_bodies import TASK_NAME_MAX
from libs.contract.validators import (
    JsonInteger,
    StrictBoolean,
    StrictNumber,
    StrictString,
    UtcDateTime,
    UuidString,
    length,
)
from services.simulations.agent.kinds import ENGINES, KINDS
from services.simulations.agent.scoring import CRITERION_TYPES
from services.simulations.schemas import Run, TaskRef

GOAL_MAX = 2000
CRITERION_VALUE_MAX = 500
CRITERIA_MAX = 20
ANSWER_MAX = 4000
PAGE_DEFAULT = 50
PAGE_MAX = 200
TRIALS_MAX = 20
DEFAULT_USER_AGENT = "AivisSimulator/1.0 (+agent-simulation)"
SEED_MAX = 2**31 - 1


def _described(text: str) -> dict[str, Any]:
    return {"description": text}


class Criterion(ApiSchema):
    type = StrictString(
        required=True,
        validate=validate.OneOf(CRITERION_TYPES),
        metadata=_described(
            "How the answer is checked: `must_include` (the answer holds the value), `exact_match` (the short answer"
            " equals it, both normalised), `regex` (the answer matches the pattern), `page_reached` (the answer came"
            " from this page), `url_visited` (the agent fetched this path)."
        ),
    )
    value = StrictString(
        required=True,
        validate=length(1, CRITERION_VALUE_MAX),
        metadata=_described("The text, pattern, path or URL the check compares with."),
    )
    required = StrictBoolean(
        load_default=True,
        metadata=_described("A required criterion must hold for the run to pass; the others weigh in the score."),
    )
    weight = StrictNumber(
        load_default=1.0,
        validate=validate.Range(min=0, max=100),
        metadata=_described("The criterion's weight among those not required."),
    )

    @validates_schema
    def _pattern_compiles(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("type") == "regex":
            try:
                re.compile(data["value"])
            except re.error as exc:
                raise ValidationError(f"Not a regular expression: {exc}.", "value") from None


def _criteria(**kwargs: Any) -> fields.List[Any]:
    return fields.List(fields.Nested(Criterion), validate=validate.Length(min=1, max=CRITERIA_MAX), **kwargs)


class TaskCreate(ApiSchema):
    name = StrictString(required=True, validate=length(1, TASK_NAME_MAX))
    category = StrictString(required=True, validate=length(1, TASK_NAME_MAX))
    goal = StrictString(required=True, validate=length(1, GOAL_MAX))
    app_id = UuidString(required=True, metadata=_described("The App whose published pages the agent visits."))
    criteria = _criteria(required=True)
    reference_answer = StrictString(allow_none=True, load_default=None, validate=length(1, ANSWER_MAX))
    step_budget = JsonInteger(load_default=8, validate=validate.Range(min=1, max=100))
    rerun_on_change = StrictBoolean(load_default=False)


class TaskUpdate(ApiSchema):
    name = StrictString(validate=length(1, TASK_NAME_MAX))
    category = StrictString(validate=length(1, TASK_NAME_MAX))
    goal = StrictString(validate=length(1, GOAL_MAX))
    app_id = UuidString()
    criteria = _criteria()
    reference_answer = StrictString(allow_none=True, validate=length(1, ANSWER_MAX))
    step_budget = JsonInteger(validate=validate.Range(min=1, max=100))
    rerun_on_change = StrictBoolean()


class Task(ApiSchema):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    name = fields.String(required=True)
    category = fields.String(required=True)
    goal = fields.String(required=True, allow_none=True)
    app_id = fields.String(required=True, allow_none=True)
    criteria = fields.List(fields.Nested(Criterion), required=True)
    reference_answer = fields.String(required=True, allow_none=True)
    step_budget = fields.Integer(required=True)
    rerun_on_change = fields.Boolean(required=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)


class PageQuery(ApiSchema):
    limit = fields.Integer(load_default=PAGE_DEFAULT, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(lambda position: position, metadata=_described("`nextCursor` of the page before."))


class TaskListQuery(PageQuery):
    app_id = UuidString(metadata=_described("Only the tasks of this App."))
    category = fields.String(validate=length(1, TASK_NAME_MAX), metadata=_described("Only the tasks of this category."))


class TaskList(ApiSchema):
    items = fields.List(fields.Nested(Task), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class AgentConfig(ApiSchema):
    kind = StrictString(
        load_default="deterministic",
        validate=validate.OneOf(KINDS),
        metadata=_described(
            "`deterministic` (ranks and reads with BM25, no model) or `llm` (an AI engine; needs its key)."
        ),
    )
    entry_point = StrictString(
        load_default="llms_txt",
        validate=validate.OneOf(("llms_txt", "sitemap")),
        metadata=_described("Where the agent starts: the App's llms.txt or its sitemap."),
    )
    max_steps = JsonInteger(
        load_default=8,
        validate=validate.Range(min=1, max=100),
        metadata=_described("The most documents the agent fetches (the task's budget may be less)."),
    )
    max_bytes = JsonInteger(
        load_default=2_000_000,
        validate=validate.Range(min=1, max=50_000_000),
        metadata=_described("The most bytes it reads; checked before each fetch."),
    )
    max_tokens = JsonInteger(
        load_default=100_000,
        validate=validate.Range(min=1, max=5_000_000),
        metadata=_described("The most tokens it reads and writes; checked before each fetch."),
    )
    max_pages = JsonInteger(
        load_default=3, validate=validate.Range(min=1, max=50), metadata=_described("The most linked pages it reads.")
    )
    user_agent = StrictString(
        load_default=DEFAULT_USER_AGENT,
        validate=length(1, 200),
        metadata=_described("The user agent it sends and the App's robots rules are read for."),
    )
    seed = JsonInteger(
        load_default=0,
        validate=validate.Range(min=0, max=SEED_MAX),
        metadata=_described("The first trial's seed; trial n runs with seed + n - 1."),
    )
    temperature = StrictNumber(
        load_default=0.0,
        validate=validate.Range(min=0, max=5),
        metadata=_described(
            "0 reads pages in rank order; above 0 the seed draws the order from the ranking's softmax."
        ),
    )
    engine = StrictString(
        validate=validate.OneOf(ENGINES), metadata=_described("The AI engine of an agent of the llm kind.")
    )


class EnvironmentCreate(ApiSchema):
    name = StrictString(required=True, validate=length(1, TASK_NAME_MAX))
    task_id = UuidString(required=True, metadata=_described("The task the environment serves."))
    agent_config = fields.Nested(
        AgentConfig,
        load_default=dict,
        metadata=_described("The agent and its configuration; every field has a default."),
    )


class Environment(ApiSchema):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    name = fields.String(required=True)
    agent_config = fields.Raw(required=True, allow_none=True)
    task = fields.Nested(TaskRef, required=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)


class EnvironmentListQuery(PageQuery):
    task_id = UuidString(metadata=_described("Only the environments of this task."))


class EnvironmentList(ApiSchema):
    items = fields.List(fields.Nested(Environment), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class RunsRequest(ApiSchema):
    environment_id = UuidString(required=True, metadata=_described("The environment to run."))
    trials = JsonInteger(
        load_default=1,
        validate=validate.Range(min=1, max=TRIALS_MAX),
        metadata=_described("How many runs to queue, each with its own seed (pass^k counts them)."),
    )


class QueuedRuns(ApiSchema):
    runs = fields.List(fields.Nested(Run), required=True, metadata=_described("The queued runs, trial 1 first."))


class Step(ApiSchema):
    seq = fields.Integer(required=True, metadata=_described("Its place in the run, from 1."))
    kind = fields.String(
        required=True,
        metadata=_described(
            "`check` (agent readiness), `fetch` (the entry document), `rank`, `read` (a page), `stop` (a budget or"
            " robots rule), `answer`, `judge` (a criterion's verdict)."
        ),
    )
    name = fields.String(required=True, metadata=_described("Which check, ranking, page or criterion."))
    url = fields.String(required=True, allow_none=True, metadata=_described("The path or URL it fetched."))
    status = fields.Integer(required=True, allow_none=True, metadata=_described("The HTTP status it met."))
    bytes = fields.Integer(required=True, metadata=_described("Bytes read."))
    tokens = fields.Integer(required=True, metadata=_described("Tokens read or written (WordPiece)."))
    ok = fields.Boolean(required=True, allow_none=True, metadata=_described("Whether it went as it should."))
    detail = fields.Raw(required=True, metadata=_described("What it found: scores, passages, the answer, why."))
    elapsed_ms = fields.Float(required=True, metadata=_described("How long it took, in milliseconds."))
    created_at = fields.DateTime(required=True)


class StepList(ApiSchema):
    items = fields.List(fields.Nested(Step), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class StepListQuery(ApiSchema):
    limit = fields.Integer(load_default=PAGE_MAX, validate=validate.Range(min=1, max=PAGE_MAX))
    cursor = PageCursor(int, metadata=_described("`nextCursor` of the page before."))


class AnalyticsQuery(ApiSchema):
    start = UtcDateTime(
        data_key="from",
        metadata=_described("The range's start, included (ISO 8601 with a zone); default 30 days before its end."),
    )
    end = UtcDateTime(
        data_key="to", metadata=_described("The range's end, excluded (ISO 8601 with a zone); default now.")
    )
    task_id = UuidString(metadata=_described("Only this task's runs."))
    environment_id = UuidString(metadata=_described("Only this environment's runs."))


class PassHatK(Ratio):
    k = fields.Integer(required=True, metadata=_described("How many trials must all pass."))


MEAN_SCORE = "The mean overallScore of the runs that have one."


class Mean(ApiSchema):
    value = fields.Float(required=True, allow_none=True, metadata=_described("sum / count; null when count is 0."))
    sum = fields.Float(required=True, metadata=_described("The sum of the values."))
    count = fields.Integer(required=True, metadata=_described("How many values."))


class MeanPassHatK(Mean):
    k = fields.Integer(required=True, metadata=_described("How many trials must all pass."))


class EnvironmentName(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class AnalyticsGroup(ApiSchema):
    task = fields.Nested(TaskRef, required=True)
    environment = fields.Nested(EnvironmentName, required=True)
    runs = fields.Integer(required=True, metadata=_described("Completed runs in the range."))
    pass_rate = fields.Nested(Ratio, required=True, metadata=_described("Runs that passed, of the completed."))
    pass_hat_k = fields.List(
        fields.Nested(PassHatK),
        required=True,
        metadata=_described(
            "pass^k for k = 1 … min(runs, 20): C(passed, k) / C(runs, k), the chance k trials all pass."
        ),
    )
    mean_score = fields.Nested(Mean, required=True, metadata=_described(MEAN_SCORE))
    median_steps = fields.Float(
        required=True, allow_none=True, metadata=_described("The median number of documents fetched by the agent.")
    )
    median_bytes = fields.Float(required=True, allow_none=True, metadata=_described("The median bytes it read."))


class AnalyticsOverall(ApiSchema):
    runs = fields.Integer(required=True, metadata=_described("Completed runs in the range."))
    pass_rate = fields.Nested(Ratio, required=True, metadata=_described("Runs that passed, of the completed."))
    pass_hat_k = fields.List(
        fields.Nested(MeanPassHatK),
        required=True,
        metadata=_described(
            "pass^k averaged over the groups with at least k runs (sum of their pass^k, and how many)."
        ),
    )
    mean_score = fields.Nested(Mean, required=True, metadata=_described(MEAN_SCORE))


class AnalyticsDay(ApiSchema):
    day = fields.String(required=True, metadata={**_described("The UTC day, `YYYY-MM-DD`."), "example": "2026-11-28"})
    runs = fields.Integer(required=True, metadata=_described("Completed runs created that day."))
    pass_rate = fields.Nested(Ratio, required=True, metadata=_described("Runs that passed, of the completed."))


class Analytics(ApiSchema):
    start = fields.DateTime(data_key="from", required=True, metadata=_described("The range's start, included."))
    end = fields.DateTime(data_key="to", required=True, metadata=_described("The range's end, excluded."))
    time_zone = fields.String(required=True, metadata=_described("The time zone of the range: `UTC`."))
    groups = fields.List(
        fields.Nested(AnalyticsGroup),
        required=True,
        metadata=_described("One row per task and environment with completed runs."),
    )
    overall = fields.Nested(AnalyticsOverall, required=True, metadata=_described("Every group together."))
    days = fields.List(
        fields.Nested(AnalyticsDay),
        required=True,
        metadata=_described("Every group together by UTC day, the days with completed runs only, oldest first."),
    )

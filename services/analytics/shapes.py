"""Answers and their analyses, prompt runs and the engine catalog as the API shows them, each
part declared once by its response schema (libs/common/shapes.py): `SHAPE.columns` to read a row,
`answer(row, analysis)` for the answer. A column named otherwise than its field is read by a
`computed` field."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from libs.common.engines.access import EngineAccess
from libs.common.shapes import Row, Shape, as_text
from services.analytics import schemas

SENTIMENT = Shape(
    schemas.Sentiment,
    computed={"label": lambda row: row["sentiment_label"], "score": lambda row: row["sentiment_score"]},
)
BRAND_MENTION = Shape(
    schemas.BrandMention,
    computed={"competitor_id": as_text("competitor_id", nullable=True), "sentiment": SENTIMENT.of},
    extra_columns=("competitor_id", "sentiment_label", "sentiment_score"),
)
APP_ROUTE_LINK = Shape(
    schemas.AppRouteLink,
    computed={
        "app_id": as_text("app_id"),
        "route_id": as_text("route_id"),
        "path": lambda row: row["route_path"],
        "href": lambda row: f"/api/v1/apps/{row['app_id']}/routes/{row['route_id']}",
    },
)


def _app_route(row: Row) -> dict[str, Any] | None:
    """The App route serving the cited page, from the citation's row; null for any other page."""
    return None if row["route_id"] is None else APP_ROUTE_LINK.of(row)


CITATION = Shape(
    schemas.Citation,
    computed={"competitor_id": as_text("competitor_id", nullable=True), "app_route": _app_route},
    extra_columns=("competitor_id", "app_id", "route_id", "route_path"),
)
# An analysis's row with its brands (by position) and citations (in order) attached.
ANALYSIS = Shape(
    schemas.Analysis,
    computed={
        "id": as_text("id"),
        "analysed_at": lambda row: row["created_at"],
        "brands": lambda row: [BRAND_MENTION.of(brand) for brand in row["brands"]],
        "citations": lambda row: [CITATION.of(citation) for citation in row["citations"]],
    },
    extra_columns=("id", "created_at"),
)

PROMPT_REF = Shape(
    schemas.PromptRef,
    computed={
        "id": as_text("prompt_id", nullable=True),
        "version": lambda row: row["prompt_version"],
        "text": lambda row: row["prompt_text"],
        "topic_id": as_text("topic_id", nullable=True),
    },
)


def _cost(row: Row) -> float | None:
    """Costs are stored as numeric: a Decimal, which the API shows as a number."""
    return None if row["cost_usd"] is None else float(row["cost_usd"])


USAGE = Shape(schemas.Usage, computed={"cost_usd": _cost}, extra_columns=("cost_usd",))
# Read although no field of the answer shows them as they are: the inputs of its computed fields,
# the body's digest (the rule of a repeated ingest) and its analysis's id (read apart, attached by
# `answer`).
ANSWER_INPUTS = (
    "id",
    "organization_id",
    "product_id",
    "run_id",
    "prompt_id",
    "prompt_version",
    "prompt_text",
    "topic_id",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "body_sha256",
    "analysis_id",
)
ANSWER = Shape(
    schemas.Answer,
    computed={
        **{name: as_text(name) for name in ("id", "organization_id", "product_id")},
        "run_id": as_text("run_id", nullable=True),
        "prompt": PROMPT_REF.of,
        "usage": USAGE.of,
    },
    omit=("analysis",),
    extra_columns=ANSWER_INPUTS,
)


def answer(row: Row, analysis: Row | None) -> dict[str, Any]:
    """The answer with its current analysis (null until it is analysed)."""
    return {**ANSWER.of(row), "analysis": None if analysis is None else ANALYSIS.of(analysis)}


# A run's counters are columns of its row: its tasks (`tasks_*`) and the usage of its answers.
RUN_PROGRESS = Shape(
    schemas.PromptRunProgress,
    computed={
        "total": lambda row: row["tasks_total"],
        "done": lambda row: row["tasks_done"],
        "failed": lambda row: row["tasks_failed"],
    },
)
RUN_USAGE = Shape(schemas.PromptRunUsage, computed={"cost_usd": _cost})
PROMPT_RUN = Shape(
    schemas.PromptRun,
    computed={
        **{name: as_text(name) for name in ("id", "organization_id", "product_id")},
        "prompt_ids": lambda row: [str(prompt_id) for prompt_id in row["prompt_ids"]],
        "progress": RUN_PROGRESS.of,
        "usage": RUN_USAGE.of,
    },
    extra_columns=(
        "id",
        "organization_id",
        "product_id",
        "prompt_ids",
        "tasks_total",
        "tasks_done",
        "tasks_failed",
        "input_tokens",
        "output_tokens",
        "cost_usd",
    ),
)
# An engine of the catalog, from its row: the engine's own fields, the model this deployment asks
# and whether it holds the vendor's key (`engine_row`).
ENGINE = Shape(schemas.Engine)


def engine_row(access: EngineAccess) -> dict[str, Any]:
    return {**asdict(access.engine), "model": access.model, "configured": access.configured}

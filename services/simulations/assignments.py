"""What a run of an environment is asked: its task's goal, App, criteria and budget, and its agent,
fixed in each run's metadata when it is queued (by a request, a content change or the demo seed)."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from libs.common.db import fetch_one
from libs.common.engines.access import EngineAccess
from libs.common.errors import ValidationFailed
from libs.common.schemas import flatten_messages
from services.simulations.agent.kinds import AgentRefused, check
from services.simulations.task_schemas import AgentConfig

AGENT_CONFIG = AgentConfig()


async def assignment_for(cur: Any, organization_id: str, environment_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The environment and what its runs are asked (its task's goal, criteria and budget, its
    agent), or 422 saying why it cannot run."""
    environment = await fetch_one(
        cur,
        "SELECT e.id::text, e.agent_config, t.id::text AS task_id, t.goal, t.app_id::text, t.criteria, t.step_budget"
        " FROM environments e JOIN tasks t ON t.id = e.task_id AND t.deleted_at IS NULL"
        " WHERE e.id = %s AND e.organization_id = %s AND e.deleted_at IS NULL",
        (environment_id, organization_id),
    )
    if environment is None:
        raise ValidationFailed(details={"environmentId": "No such environment in this organization."})
    if environment["goal"] is None or environment["app_id"] is None:
        raise ValidationFailed(details={"environmentId": "Its task was recorded without a goal and an App to visit."})
    try:
        config = AGENT_CONFIG.dump(AGENT_CONFIG.load(environment["agent_config"] or {}))
    except ValidationError as error:
        details = {f"agentConfig.{key}": message for key, message in flatten_messages(error.messages).items()}
        raise ValidationFailed("the environment's agentConfig cannot run", details) from None
    assignment = {
        "goal": environment["goal"],
        "appId": environment["app_id"],
        "criteria": environment["criteria"],
        "stepBudget": environment["step_budget"],
        "agentConfig": config,
    }
    return environment, assignment


def require_runnable(config: dict[str, Any], accesses: tuple[EngineAccess, ...]) -> None:
    """422 saying why when the agent of `config` (as the API shows it) cannot run with these keys."""
    try:
        check(config.get("kind", "deterministic"), config.get("engine"), accesses)
    except AgentRefused as refused:
        raise ValidationFailed(str(refused), {"agentConfig.engine": str(refused)}) from None

"""The simulations service's public routes.

Declarations only (libs/contract/route.py): the service registers its handlers by these names,
the gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.event import Event
from libs.contract.route import Route
from services.simulations import schemas as simulations

PART = "simulations"

ROUTES: tuple[Route, ...] = (
    Route("GET", "/api/v1/agent-simulation/runs", PART, "simulations:read", "simulation_runs_list",
          "List the organization's agent-simulation runs, newest first",
          query=simulations.RunListQuery, response=simulations.RunList, tag="Agent simulation"),
    Route("GET", "/api/v1/agent-simulation/runs/{runId}", PART, "simulations:read", "simulation_runs_get",
          "One of the organization's agent-simulation runs", response=simulations.Run, tag="Agent simulation"),
)  # fmt: skip

EVENTS: tuple[Event, ...] = (
    Event("simulation.run.recorded", "An agent-simulation run was recorded.", simulations.Run, "Agent simulation"),
)

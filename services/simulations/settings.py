"""Settings of the simulations service, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.engines.access import EngineAccess, engine_accesses
from libs.common.events import content_events_stream, webhook_events_stream
from libs.common.object_store import store_setting
from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields
from libs.contract.parts import APPS, Part


@dataclass(frozen=True)
class SimulationsSettings(ServiceSettings):
    # Agents read Apps' published documents from the apps part.
    apps_url: str
    # Whether this process takes queued runs (the API answers either way), how many at once, and
    # how many of one organization may run at once over every worker.
    worker: bool
    worker_concurrency: int
    organization_concurrency: int
    # A taken run is held this long and the hold renewed while it runs; a run whose hold lapsed (its
    # worker died) is taken again, up to `max_attempts` takings, then failed.
    lease_seconds: int
    max_attempts: int
    # How often an idle worker looks at the queue (a queued run also wakes the workers of its process).
    poll_seconds: float
    # How this deployment reaches each engine an `llm` agent may use (libs/common/engines/access.py),
    # how long one call may take and how many times a failed one is tried again.
    engines: tuple[EngineAccess, ...]
    # Where each run's step log is kept: `postgres` (the part's `objects` table) or `file:<directory>`
    # (libs/common/object_store.py).
    log_store: str
    engine_timeout_seconds: float
    engine_retries: int

    # The streams whose events may call for a task's re-run (services/simulations/reruns.py).
    @property
    def content_stream(self) -> str:
        return content_events_stream(self.redis_prefix)

    @property
    def apps_stream(self) -> str:
        return webhook_events_stream(self.redis_prefix, APPS.name)

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> SimulationsSettings:
        env = Env(environ)
        worker = env.text("SIMULATION_WORKER", "on").lower()
        if worker not in ("on", "off"):
            raise SettingsError(f"environment variable SIMULATION_WORKER must be on or off, got {worker!r}")
        return cls(
            **common_fields(part, env),
            apps_url=env.part_url("apps"),
            worker=worker == "on",
            worker_concurrency=env.integer("SIMULATION_WORKER_CONCURRENCY", 2, minimum=1),
            organization_concurrency=env.integer("SIMULATION_ORGANIZATION_CONCURRENCY", 2, minimum=1),
            lease_seconds=env.integer("SIMULATION_LEASE_SECONDS", 30, minimum=2),
            max_attempts=env.integer("SIMULATION_MAX_ATTEMPTS", 2, minimum=1),
            poll_seconds=env.integer("SIMULATION_POLL_MS", 500, minimum=10) / 1000,
            engines=engine_accesses(env),
            log_store=store_setting("SIMULATION_LOG_STORE", env.text("SIMULATION_LOG_STORE", "postgres")),
            engine_timeout_seconds=float(env.integer("ENGINE_TIMEOUT_SECONDS", 60, minimum=1)),
            engine_retries=env.integer("ENGINE_RETRIES", 2, minimum=0),
        )

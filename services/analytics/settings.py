"""Settings of the analytics part, from the environment only. An engine's key unset: the engine is
listed as not configured and refused; nothing answers in its place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.engines.access import EngineAccess, engine_accesses
from libs.common.settings import Env, ServiceSettings, common_fields
from libs.contract.parts import Part


@dataclass(frozen=True)
class AnalyticsSettings(ServiceSettings):
    gateway_url: str
    personas_url: str
    # The App routes cited pages are linked to (services/analytics/route_links.py).
    apps_url: str
    traffic_url: str
    engines: tuple[EngineAccess, ...]
    # Seconds one engine call may take, and how many times a failed one is tried again.
    engine_timeout_seconds: float
    engine_retries: int
    # How often each replica looks for prompts due on their cadence.
    schedule_interval_seconds: float

    def access(self, engine_id: str) -> EngineAccess | None:
        return next((access for access in self.engines if access.engine.id == engine_id), None)

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> AnalyticsSettings:
        env = Env(environ)
        return cls(
            **common_fields(part, env),
            gateway_url=env.part_url("gateway"),
            personas_url=env.part_url("personas"),
            apps_url=env.part_url("apps"),
            traffic_url=env.part_url("traffic"),
            engines=engine_accesses(env),
            engine_timeout_seconds=float(env.integer("ENGINE_TIMEOUT_SECONDS", 60, minimum=1)),
            engine_retries=env.integer("ENGINE_RETRIES", 2, minimum=0),
            schedule_interval_seconds=float(env.integer("SCHEDULE_INTERVAL_SECONDS", 60, minimum=1)),
        )

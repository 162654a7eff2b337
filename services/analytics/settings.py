"""Settings of the analytics part, from the environment only. An engine's key unset: the engine is
listed as not configured and refused; nothing answers in its place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields
from libs.contract.engines import ENGINES, Engine
from libs.contract.parts import Part


@dataclass(frozen=True)
class EngineAccess:
    """How this deployment reaches one engine: its vendor's key, base URL (None: the SDK's default)
    and model, and how many calls it may have in flight and start a minute."""

    engine: Engine
    api_key: str | None
    base_url: str | None
    model: str
    concurrency: int
    per_minute: int
    # US dollars per million tokens (input, output), for the cost of an answer when the vendor
    # reports none; None: cost unknown.
    prices: tuple[float, float] | None

    @property
    def configured(self) -> bool:
        return bool(self.api_key)


@dataclass(frozen=True)
class AnalyticsSettings(ServiceSettings):
    gateway_url: str
    personas_url: str
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
            traffic_url=env.part_url("traffic"),
            engines=tuple(_access(env, engine) for engine in ENGINES),
            engine_timeout_seconds=float(env.integer("ENGINE_TIMEOUT_SECONDS", 60, minimum=1)),
            engine_retries=env.integer("ENGINE_RETRIES", 2, minimum=0),
            schedule_interval_seconds=float(env.integer("SCHEDULE_INTERVAL_SECONDS", 60, minimum=1)),
        )


def _access(env: Env, engine: Engine) -> EngineAccess:
    vendor = engine.vendor.upper()
    return EngineAccess(
        engine,
        env.text(f"{vendor}_API_KEY", "") or None,
        env.text(f"{vendor}_BASE_URL", "") or None,
        env.text(f"{vendor}_MODEL", engine.default_model),
        env.integer(f"{vendor}_CONCURRENCY", 4, minimum=1),
        env.integer(f"{vendor}_REQUESTS_PER_MINUTE", 60, minimum=1),
        _prices(f"{vendor}_PRICE_PER_MTOK", env.text(f"{vendor}_PRICE_PER_MTOK", "")),
    )


def _prices(name: str, text: str) -> tuple[float, float] | None:
    """ "input,output" in US dollars per million tokens, or nothing."""
    if not text:
        return None
    try:
        given, made = (float(part) for part in text.split(","))
    except ValueError:
        raise SettingsError(f"environment variable {name} must be two prices, input,output, got {text!r}") from None
    return given, made

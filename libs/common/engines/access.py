"""How a deployment reaches each engine of the catalog (libs/contract/engines.py), from the
environment: `<VENDOR>_API_KEY`, `_BASE_URL`, `_MODEL`, `_CONCURRENCY`, `_REQUESTS_PER_MINUTE` and
`_PRICE_PER_MTOK`. Every part that calls an engine reads the same settings."""

from __future__ import annotations

from dataclasses import dataclass

from libs.common.settings import Env, SettingsError
from libs.contract.engines import ENGINES, Engine


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


def engine_accesses(env: Env) -> tuple[EngineAccess, ...]:
    """The access of every engine of the catalog, configured or not."""
    return tuple(_access(env, engine) for engine in ENGINES)


def key_setting(engine: Engine) -> str:
    return f"{engine.vendor.upper()}_API_KEY"


def _access(env: Env, engine: Engine) -> EngineAccess:
    vendor = engine.vendor.upper()
    return EngineAccess(
        engine,
        env.text(key_setting(engine), "") or None,
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

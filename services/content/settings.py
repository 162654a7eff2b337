"""Settings of the content service, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.events import content_events_stream
from libs.common.settings import Env, ServiceSettings, common_fields
from libs.contract.parts import Part


@dataclass(frozen=True)
class ContentSettings(ServiceSettings):
    # The apps service, which owns domains: attached domain ids are checked there.
    apps_url: str

    @property
    def events_stream(self) -> str:
        return content_events_stream(self.redis_prefix)

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> ContentSettings:
        env = Env(environ)
        return cls(
            **common_fields(part, env),
            apps_url=env.part_url("apps"),
        )

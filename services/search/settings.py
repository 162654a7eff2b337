"""Settings of the search service, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from libs.common.cpu import available_cpus
from libs.common.events import content_events_stream
from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields
from libs.contract.parts import Part

SWITCHES = {"on": True, "off": False}


@dataclass(frozen=True)
class SearchSettings(ServiceSettings):
    # Documents are read from, and lastIndexedAt reported to, the content service.
    content_url: str
    # Whether this process consumes content events and indexes (the API answers either way).
    indexing: bool
    # Threads embedding documents for the index, at a lower priority than queries (which embed on
    # a pool of their own): one per CPU of the container's quota (libs/common/cpu.py), so a burst
    # of writes is indexed on every CPU the pod may use, and no more.
    indexing_threads: int
    # How many chunk vectors a replica keeps in memory, over all organizations (least recently
    # searched organizations go first); about 1.6 KB each.
    cache_max_chunks: int

    @property
    def events_stream(self) -> str:
        return content_events_stream(self.redis_prefix)

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> SearchSettings:
        env = Env(environ)
        indexing = env.text("SEARCH_INDEXING", "on").lower()
        if indexing not in SWITCHES:
            raise SettingsError(f"environment variable SEARCH_INDEXING must be on or off, got {indexing!r}")
        return cls(
            **common_fields(part, env),
            content_url=env.part_url("content"),
            indexing=SWITCHES[indexing],
            indexing_threads=env.integer("SEARCH_INDEXING_THREADS", available_cpus(), minimum=1),
            cache_max_chunks=env.integer("SEARCH_CACHE_MAX_CHUNKS", 500_000, minimum=1),
        )

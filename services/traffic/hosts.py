"""Which App of an organization a hostname belongs to, asked of the apps service (its owner) and
cached: a known host for a minute, an unknown one for ten seconds, so a domain just added is
accepted soon and a burst of events asks the owner once per host, not once per event."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from libs.common.clients import AppsClient
from libs.common.internal_token import Caller
from services.traffic.ttl_cache import MISSING, TtlCache

KNOWN_TTL_SECONDS = 60.0
UNKNOWN_TTL_SECONDS = 10.0
ASK_AT_MOST = 500
HOST_MAX = 253


@dataclass(frozen=True)
class AppHost:
    app_id: str
    domain_id: str


@dataclass
class HostDirectory:
    apps: AppsClient
    _cache: TtlCache[tuple[str, str], AppHost | None] = field(default_factory=lambda: TtlCache(KNOWN_TTL_SECONDS))

    async def lookup(self, caller: Caller, hosts: Iterable[str]) -> dict[str, AppHost]:
        """The hosts among `hosts` that one of the caller's organization's Apps claims."""
        organization_id = caller.org.id
        found: dict[str, AppHost] = {}
        missing = []
        for host in set(hosts):
            if not 0 < len(host) <= HOST_MAX:  # no App's hostname: not worth asking
                continue
            cached = self._cache.get((organization_id, host))
            if cached is MISSING:
                missing.append(host)
            elif isinstance(cached, AppHost):
                found[host] = cached
        for start in range(0, len(missing), ASK_AT_MOST):
            asked = missing[start : start + ASK_AT_MOST]
            answer = await self.apps.domains_by_host(caller, asked)
            for host in asked:
                domain = answer.get(host)
                if domain is None:
                    self._cache.put((organization_id, host), None, UNKNOWN_TTL_SECONDS)
                else:
                    found[host] = self._cache_known(organization_id, host, AppHost(domain["appId"], domain["id"]))
        return found

    def _cache_known(self, organization_id: str, host: str, app_host: AppHost) -> AppHost:
        self._cache.put((organization_id, host), app_host)
        return app_host

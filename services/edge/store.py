"""What the edge holds in memory, so that a warm request reads nothing: which App each hostname
serves, each App's site (name, config, primary URL, routed paths) and the answers made from it.

Everything is read through the apps service (never a table) the first time it is asked for, once
however many requests ask at the same moment, and kept until it may have changed:

- an App's whole copy (its hostnames, site and answers) is dropped when its version, which apps
  answers for every App the edge holds in one call every `refresh_seconds`, is no longer the one
  it was read at (a change to the App, its config, domains, products or routes), or the App is gone;
- the answers of an organization's Apps are dropped when the content stream announces a change
  to one of its documents (services/edge/changes.py);
- a hostname no verified domain holds is asked again after NEGATIVE_SECONDS, so a domain verified
  just now is served as soon;
- an App no request asked for during IDLE_SECONDS is dropped, and the answers are a bounded LRU.

A copy being read while its App changes is not kept: each App and organization counts its
invalidations, and a read that started before one is answered but not stored.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from libs.common.clients import EdgeAppsClient
from libs.common.internal_token import Organization, service_caller
from libs.contract.validators import normalize_route_path

log = logging.getLogger(__name__)

NEGATIVE_SECONDS = 1.0
IDLE_SECONDS = 600.0
MAX_HOSTS = 100_000
# Apps whose versions are asked in one call (the apps service's limit).
VERSIONS_PER_CALL = 500


@dataclass(frozen=True)
class Domain:
    """A verified domain of a live App, as apps answered it."""

    hostname: str
    domain_id: str
    organization_id: str
    app_id: str
    type: str
    origin: str | None


# What `Store.held` gives for an answer not held (None is an answer: no published page there).
MISSING: Any = object()

# The App domain a request was answered for (the request log names it).
DOMAIN: web.RequestKey[Domain] = web.RequestKey("edge_domain")


@dataclass(frozen=True)
class Site:
    app_id: str
    organization_id: str
    name: str
    config: Any
    base_url: str
    # Canonical path key -> the route's path as written.
    routes: dict[str, str]


@dataclass
class _App:
    """An App the edge holds something of: the version it was read at, and its site once read."""

    organization_id: str
    version: str
    used_at: float
    site: Site | None = None
    answers: set[Hashable] = field(default_factory=set)


class Store:
    def __init__(
        self, apps: EdgeAppsClient, capacity: int, clock: Callable[[], float] = time.monotonic, service: str = "edge"
    ) -> None:
        self._apps = apps
        self._capacity = capacity
        self._clock = clock
        self._service = service
        self._hosts: OrderedDict[str, tuple[Domain | None, float]] = OrderedDict()
        self._apps_held: dict[str, _App] = {}
        self._answers: OrderedDict[tuple[str, Hashable], Any] = OrderedDict()
        self._flights: dict[Hashable, asyncio.Future[Any]] = {}
        # Invalidations so far, per App and per organization, and of any hostname.
        self._app_changes: dict[str, int] = {}
        self._org_changes: dict[str, int] = {}
        self._host_changes = 0

    def caller(self, organization_id: str | None = None) -> Any:
        organization = Organization(id=organization_id, slug="", name="") if organization_id else None
        return service_caller(self._service, organization)

    async def _once(self, key: Hashable, load: Callable[[], Awaitable[Any]]) -> Any:
        """`load()`'s result, one load at a time per key: requests arriving meanwhile share it."""
        flight = self._flights.get(key)
        if flight is None:
            flight = asyncio.ensure_future(load())
            self._flights[key] = flight
            flight.add_done_callback(lambda _: self._flights.pop(key, None))
        return await asyncio.shield(flight)

    # Hostnames

    async def domain(self, hostname: str) -> Domain | None:
        """The verified domain holding `hostname`, or None."""
        held = self._hosts.get(hostname)
        if held is not None and (held[0] is not None or held[1] > self._clock()):
            self._hosts.move_to_end(hostname)
            if held[0] is not None and held[0].app_id in self._apps_held:
                self._apps_held[held[0].app_id].used_at = self._clock()
            return held[0]
        return await self._once(("host", hostname), lambda: self._load_domain(hostname))  # type: ignore[no-any-return]

    async def _load_domain(self, hostname: str) -> Domain | None:
        changes = self._host_changes
        found = await self._apps.host(self.caller(), hostname)
        domain = None
        if found is not None:
            domain = Domain(
                found["hostname"],
                found["domainId"],
                found["organizationId"],
                found["appId"],
                found["type"],
                found["origin"],
            )
        if changes == self._host_changes:
            if domain is not None:
                self._hold(domain.app_id, domain.organization_id, found["version"] if found else "")
            self._hosts[hostname] = (domain, self._clock() + NEGATIVE_SECONDS)
            while len(self._hosts) > MAX_HOSTS:
                self._hosts.popitem(last=False)
        return domain

    def _hold(self, app_id: str, organization_id: str, version: str) -> _App:
        """The App as held at `version`: what was held at another version is dropped first."""
        held = self._apps_held.get(app_id)
        if held is not None and held.version != version:
            self.forget_app(app_id)
            held = None
        if held is None:
            held = self._apps_held[app_id] = _App(organization_id, version, self._clock())
        return held

    # Sites

    async def site(self, domain: Domain) -> Site:
        held = self._apps_held.get(domain.app_id)
        if held is not None:
            held.used_at = self._clock()
            if held.site is not None:
                return held.site
        return await self._once(("site", domain.app_id), lambda: self._load_site(domain))  # type: ignore[no-any-return]

    async def _load_site(self, domain: Domain) -> Site:
        app_id, organization_id = domain.app_id, domain.organization_id
        changes = self._app_changes.get(app_id, 0)
        found = await self._apps.site(self.caller(organization_id), app_id)
        routes = {normalize_route_path(path): path for path, _ in found["routes"]}
        site = Site(app_id, organization_id, found["name"], found["config"], found["baseUrl"], routes)
        if changes == self._app_changes.get(app_id, 0):
            self._hold(app_id, organization_id, found["version"]).site = site
        return site

    # Answers

    def held(self, site: Site, key: Hashable) -> Any:
        """The answer kept for `key` of the App, or MISSING: a warm request's only lookup."""
        slot = (site.app_id, key)
        answer = self._answers.get(slot, MISSING)
        if answer is not MISSING:
            self._answers.move_to_end(slot)
        return answer

    async def answer(self, site: Site, key: Hashable, make: Callable[[], Awaitable[Any]]) -> Any:
        """What `make()` gives for `key` of the App, made once and kept while the App and its documents stay."""
        answer = self.held(site, key)
        if answer is not MISSING:
            return answer
        slot = (site.app_id, key)
        return await self._once(("answer", slot), lambda: self._make(site, slot, make))

    async def _make(self, site: Site, slot: tuple[str, Hashable], make: Callable[[], Awaitable[Any]]) -> Any:
        changes = (self._app_changes.get(site.app_id, 0), self._org_changes.get(site.organization_id, 0))
        made = await make()
        held = self._apps_held.get(site.app_id)
        now = (self._app_changes.get(site.app_id, 0), self._org_changes.get(site.organization_id, 0))
        if held is not None and held.site is site and changes == now:
            self._answers[slot] = made
            held.answers.add(slot[1])
            while len(self._answers) > self._capacity:
                (app_id, key), _ = self._answers.popitem(last=False)
                if app_id in self._apps_held:
                    self._apps_held[app_id].answers.discard(key)
        return made

    # Invalidation

    def forget_app(self, app_id: str) -> None:
        """Drop everything of the App: its hostnames, site and answers."""
        self._app_changes[app_id] = self._app_changes.get(app_id, 0) + 1
        self._host_changes += 1
        held = self._apps_held.pop(app_id, None)
        if held is not None:
            for key in held.answers:
                self._answers.pop((app_id, key), None)
        for hostname in [name for name, (domain, _) in self._hosts.items() if domain and domain.app_id == app_id]:
            del self._hosts[hostname]

    def forget_answers_of(self, organization_id: str) -> None:
        """Drop the answers of the organization's Apps (a document of it changed)."""
        self._org_changes[organization_id] = self._org_changes.get(organization_id, 0) + 1
        for app_id, held in self._apps_held.items():
            if held.organization_id == organization_id:
                for key in held.answers:
                    self._answers.pop((app_id, key), None)
                held.answers.clear()

    def forget_all_answers(self) -> None:
        """Drop every answer: what changed cannot be known (the change stream could not be read)."""
        for organization_id in {held.organization_id for held in self._apps_held.values()}:
            self.forget_answers_of(organization_id)

    async def refresh(self) -> None:
        """Ask apps for the version of every App held; drop those changed, gone or idle."""
        idle_before = self._clock() - IDLE_SECONDS
        for app_id in [app_id for app_id, held in self._apps_held.items() if held.used_at < idle_before]:
            self.forget_app(app_id)
        held_versions = {app_id: held.version for app_id, held in self._apps_held.items()}
        app_ids = list(held_versions)
        for start in range(0, len(app_ids), VERSIONS_PER_CALL):
            batch = app_ids[start : start + VERSIONS_PER_CALL]
            versions = await self._apps.versions(self.caller(), batch)
            for app_id in batch:
                if versions.get(app_id) != held_versions[app_id]:
                    self.forget_app(app_id)

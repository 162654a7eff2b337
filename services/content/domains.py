"""Domains attached to documents belong to the apps service: ids are checked there."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aiohttp import web

from libs.common.clients import AppsClient
from libs.common.internal_token import service_caller
from libs.common.state import HTTP, SETTINGS, caller_of

RESOLVE_BATCH = 500  # the most ids /internal/domains/resolve takes at once
UNKNOWN = "No such domain in this organization."


@dataclass(frozen=True)
class DomainChange:
    """Domains to attach and detach, and the one to make canonical (attached if it is not yet)."""

    attach: tuple[str, ...] = ()
    detach: tuple[str, ...] = ()
    canonical: str | None = None

    @property
    def ids(self) -> set[str]:
        """The ids apps must resolve: those to attach and the canonical one (any id may be detached)."""
        return {*self.attach, *([self.canonical] if self.canonical else [])}

    def to_attach(self, hostnames: Mapping[str, str]) -> dict[str, str]:
        wanted = [*self.attach, *([self.canonical] if self.canonical else [])]
        return {domain_id: hostnames[domain_id] for domain_id in wanted}

    def problems(self, hostnames: Mapping[str, str], attach_field: str, detach_field: str = "detach") -> dict[str, str]:
        """Field path -> message for every id to attach that is not one of the organization's domains,
        and for contradictions (detaching what is attached or made canonical in the same change).
        Any id may be detached: one apps no longer resolves (deleted, released, purged) leaves an
        attachment that must always be removable, and detaching what is not attached changes nothing."""
        found: dict[str, str] = {}
        for index, domain_id in enumerate(self.attach):
            if domain_id not in hostnames:
                found[f"{attach_field}.{index}"] = UNKNOWN
        for index, domain_id in enumerate(self.detach):
            if domain_id in self.attach:
                found[f"{detach_field}.{index}"] = "Cannot be both attached and detached."
        if self.canonical is not None:
            if self.canonical not in hostnames:
                found["canonicalDomainId"] = UNKNOWN
            elif self.canonical in self.detach:
                found["canonicalDomainId"] = "The canonical domain cannot be detached."
        return found


async def resolve_domains(request: web.Request, ids: Iterable[str]) -> dict[str, str]:
    """id -> hostname of the caller's organization's live domains among `ids`; others are absent."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    caller = caller_of(request)
    settings = request.app[SETTINGS]
    apps = AppsClient(request.app[HTTP], settings.apps_url)
    on_behalf = service_caller(settings.name, caller.org, caller.request_id)
    hostnames: dict[str, str] = {}
    for start in range(0, len(wanted), RESOLVE_BATCH):
        hostnames.update(await apps.resolve_domains(on_behalf, wanted[start : start + RESOLVE_BATCH]))
    return hostnames

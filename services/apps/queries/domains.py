"""Domains and their legacy routing configs. Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from libs.common import webhook_outbox
from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_one, fetch_returned, json_or_null
from libs.common.errors import NotFound
from libs.contract.validators import is_uuid
from services.apps.queries.apps import live_app_ids
from services.apps.shapes import DOMAIN, LEGACY_ROUTING

OPTIONAL_DOMAIN_VALUES = {"id": None, "app_id": None, "product_id": None, "origin": None, "claim_days": None}

# A domain that holds its hostname: not deleted, not released, and verified or its claim not lapsed
# (between a lapse and the sweep that releases it). Every lookup other parts rely on asks this.
HELD = (
    "{t}deleted_at IS NULL AND {t}released_at IS NULL AND ({t}expires_at IS NULL OR {t}expires_at > clock_timestamp())"
)


def held(alias: str = "") -> str:
    return HELD.format(t=f"{alias}." if alias else "")


async def announce(cur: Any, intent: str, organization_id: str, domain: dict[str, Any]) -> None:
    """Queue `app.domain.<intent>` with the domain as the API shows it, in the caller's transaction.
    Only an app's domains are announced (a legacy product domain belongs to no app)."""
    if domain["scope"] == "app":
        await webhook_outbox.record(cur, f"app.domain.{intent}", organization_id, f"app.domain:{domain['id']}", domain)


async def insert_domain(cur: Any, organization_id: str, values: dict[str, Any]) -> Row:
    """Store a live domain (its provider id comes next); a hostname held anywhere, in any organization, is a 409.

    `values` may fix the id (the demo seed); otherwise the database makes one. With `claim_days`
    the domain is an unverified claim lapsing that many days from now; without, it is verified.
    """
    with conflict_on_unique(f"the domain {values['domain']} is already in use", "domains_live_hostname_key"):
        return await fetch_returned(
            cur,
            "INSERT INTO domains (id, organization_id, scope, app_id, product_id, domain, type, origin,"
            " verification_token, expires_at, verified_at)"
            " VALUES (COALESCE(%(id)s, gen_random_uuid()), %(organization_id)s, %(scope)s, %(app_id)s,"
            " %(product_id)s, %(domain)s, %(type)s, %(origin)s, %(verification_token)s,"
            " clock_timestamp() + make_interval(days => %(claim_days)s),"
            " CASE WHEN %(claim_days)s IS NULL THEN clock_timestamp() END) RETURNING id",
            {**OPTIONAL_DOMAIN_VALUES, **values, "organization_id": organization_id},
        )


async def set_provider_id(cur: Any, domain_id: str, provider_id: str) -> dict[str, Any]:
    row = await fetch_returned(
        cur, f"UPDATE domains SET provider_id = %s WHERE id = %s RETURNING {DOMAIN.columns}", (provider_id, domain_id)
    )
    return DOMAIN.of(row)


async def list_app_domains(cur: Any, app_id: str) -> list[dict[str, Any]]:
    """The app's domains that are not deleted, released ones included (their organization sees them go)."""
    rows = await fetch_all(
        cur,
        f"SELECT {DOMAIN.columns} FROM domains WHERE app_id = %s AND deleted_at IS NULL ORDER BY created_at, id",
        (app_id,),
    )
    return [DOMAIN.of(row) for row in rows]


async def delete_app_domain(cur: Any, organization_id: str, app_id: str, domain_id: str) -> dict[str, Any]:
    """Soft-delete one of the app's live domains, announcing it; its hostname is free at once."""
    row = None
    if is_uuid(domain_id):
        row = await fetch_one(
            cur,
            "UPDATE domains SET deleted_at = clock_timestamp()"
            f" WHERE id = %s AND app_id = %s AND deleted_at IS NULL RETURNING {DOMAIN.columns}",
            (domain_id, app_id),
        )
    if row is None:
        raise NotFound("domain not found")
    domain = DOMAIN.of(row)
    await announce(cur, "deleted", organization_id, domain)
    return domain


async def resolve_domains(cur: Any, organization_id: str, ids: list[str]) -> list[Row]:
    """The domains among `ids` that belong to the organization and hold their hostname."""
    return await fetch_all(
        cur,
        "SELECT id, domain FROM domains"
        f" WHERE organization_id = %s AND id = ANY(%s::uuid[]) AND {held()} ORDER BY domain",
        (organization_id, ids),
    )


async def app_domains_by_host(cur: Any, organization_id: str, hostnames: list[str]) -> list[Row]:
    """The organization's App domains holding one of `hostnames` (verified or not), of live apps."""
    return await fetch_all(
        cur,
        "SELECT d.id, d.domain, d.app_id, d.verified_at IS NOT NULL AS verified FROM domains d"
        " JOIN apps a ON a.id = d.app_id AND a.deleted_at IS NULL"
        f" WHERE d.organization_id = %s AND d.scope = 'app' AND d.domain = ANY(%s) AND {held('d')} ORDER BY d.domain",
        (organization_id, hostnames),
    )


async def insert_legacy_routing(cur: Any, domain_id: str, config: dict[str, Any]) -> None:
    await cur.execute(
        "INSERT INTO legacy_routing_configs (domain_id, config) VALUES (%s, %s)", (domain_id, json_or_null(config))
    )


async def find_legacy_routing(cur: Any, organization_id: str, domain_id: str) -> dict[str, Any] | None:
    """The routing config of one of the organization's domains holding its hostname, in its API shape, naming
    live apps only."""
    if not is_uuid(domain_id):
        return None
    row = await fetch_one(
        cur,
        f"SELECT {LEGACY_ROUTING.columns_of('l')} FROM legacy_routing_configs l JOIN domains d ON d.id = l.domain_id"
        f" WHERE l.domain_id = %s AND d.organization_id = %s AND {held('d')}",
        (domain_id, organization_id),
    )
    if row is None:
        return None
    # A path to a deleted app is left out while the app is deleted (the stored config keeps it,
    # so a restore brings it back), and for good once the app is purged.
    paths = row["config"]["paths"]
    live = await live_app_ids(cur, organization_id, [path["destination"]["appId"] for path in paths])
    live_paths = [path for path in paths if path["destination"]["appId"] in live]
    return LEGACY_ROUTING.of({**row, "config": {**row["config"], "paths": live_paths}})


async def find_domain(cur: Any, domain_id: str) -> dict[str, Any] | None:
    row = await fetch_one(cur, f"SELECT {DOMAIN.columns} FROM domains WHERE id = %s", (domain_id,))
    return None if row is None else DOMAIN.of(row)

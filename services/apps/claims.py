"""Who holds a hostname: adding an app's domain as a claim, proving it, taking over an unproven one.

A hostname is held by one domain across every organization (the unique index decides). A domain
added through the API is an unverified claim until its TXT record is found
(services/apps/verification.py); a claim not proven within DOMAIN_CLAIM_DAYS lapses and is
released. A newcomer adding a hostname another organization holds unverified meets a 409 whose
`details.verification` is a challenge recorded for the newcomer's app; once the TXT record
carries it, the same request again releases the holder's claim and adds the domain, verified, to
the newcomer's app. A verified domain is taken over the same way once its own record has been
missing for the grace period (services/apps/rechecks.py) and the lookup that proves the newcomer
does not find it back; otherwise it cannot be taken. The holder is told by `app.domain.taken_over`.
See docs/architecture.md, "Domain ownership".
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import aiopg

from libs.common.db import Row, cursor, transaction
from libs.common.errors import Conflict, NotFound
from services.apps.domains import new_token, register_domain
from services.apps.edge import EdgeProvider
from services.apps.queries import apps as app_queries
from services.apps.queries import claims as queries
from services.apps.queries.domains import announce
from services.apps.verification import TxtChecker, challenge


def _in_use(hostname: str) -> Conflict:
    return Conflict(f"the domain {hostname} is already in use")


def _challenged(hostname: str, found: Row, error: dict[str, str] | None) -> Conflict:
    """The 409 of a hostname another organization holds unverified: the newcomer's challenge, never the holder."""
    details: dict[str, Any] = {
        "domain": hostname,
        "verification": [challenge(hostname, found["token"])],
        "expiresAt": found["expires_at"],
    }
    if error is not None:
        details["verificationError"] = error
    return Conflict(
        f"the domain {hostname} is claimed by another organization but not verified: publish the TXT record in"
        " details.verification, then send this request again to take the domain over",
        details,
    )


def _keeps(holder: Row, organization_id: str) -> bool:
    """Whether the holder keeps the hostname whatever the newcomer proves: it is the newcomer's own
    organization, or verified with its record not missing for the grace period."""
    return str(holder["organization_id"]) == organization_id or (
        holder["verified_at"] is not None and not holder["reclaimable"]
    )


async def add_app_domain(
    pool: aiopg.Pool,
    edge: EdgeProvider,
    checker: TxtChecker,
    claim_days: int,
    grace_seconds: int,
    organization_id: str,
    app_id: str,
    data: dict[str, Any],
) -> dict[str, Any]:
    """Add a domain to the app: a new claim when the hostname is free (or held by a lapsed claim),
    a takeover when the app's challenge for it is proven and the holder's claim is unverified or
    its record missing for `grace_seconds`; otherwise a 409."""
    hostname = data["domain"]
    values = {**data, "scope": "app", "app_id": app_id}
    async with transaction(pool) as cur:
        await app_queries.require_app(cur, organization_id, app_id, lock=True)
        holder = await queries.lock_holder(cur, hostname, grace_seconds)
        if holder is None or holder["lapsed"]:
            if holder is not None:
                await queries.release(cur, holder["id"], "expired")
            return await register_domain(cur, edge, organization_id, values, claim_days)
        if _keeps(holder, organization_id):
            raise _in_use(hostname)
        found, new = await queries.challenge_for(cur, organization_id, app_id, hostname, claim_days, new_token())
    if new:
        raise _challenged(hostname, found, None)
    # The lookup may take seconds: no transaction waits on it. What it found is judged afresh below.
    lookup = await checker.lookup(hostname)
    error = lookup.proves(found["token"])
    if error is not None:
        raise _challenged(hostname, found, error)
    async with transaction(pool) as cur:
        await app_queries.require_app(cur, organization_id, app_id, lock=True)
        holder = await queries.lock_holder(cur, hostname, grace_seconds)
        if holder is not None:
            # A verified holder whose record is back in the very lookup that proved the newcomer keeps it.
            if _keeps(holder, organization_id) or (
                holder["verified_at"] is not None and not lookup.absent(holder["verification_token"])
            ):
                raise _in_use(hostname)
            released = await queries.release(cur, holder["id"], "expired" if holder["lapsed"] else "claimed")
            if released is not None and released["releaseReason"] == "claimed":
                await announce(cur, "taken_over", str(holder["organization_id"]), released)
        await queries.drop_challenge(cur, app_id, hostname)
        return await register_domain(cur, edge, organization_id, {**values, "verification_token": found["token"]})


async def verify_app_domain(
    pool: aiopg.Pool, checker: TxtChecker, organization_id: str, app_id: str, domain_id: str
) -> dict[str, Any]:
    """Look the domain's TXT record up and store the outcome: the domain, verified or with why not.

    A verified domain is answered as it is; a released or lapsed claim cannot be proven any more (409).
    """
    async with cursor(pool) as cur:
        await app_queries.require_app(cur, organization_id, app_id)
        domain = await queries.find_app_domain(cur, app_id, domain_id)
    if domain is None:
        raise NotFound("no such domain in this app")
    _refuse_ended(domain)
    if domain["verified"]:
        return domain
    token = domain["verification"][0]["value"]
    error = await checker.check(domain["domain"], token)
    async with transaction(pool) as cur:
        checked = await queries.record_check(cur, organization_id, domain["id"], error)
        if checked is None:
            found = await queries.find_app_domain(cur, app_id, domain["id"])
            if found is None:
                raise NotFound("no such domain in this app")
            _refuse_ended(found)
            return found
    return checked


def _refuse_ended(domain: dict[str, Any]) -> None:
    if domain["releasedAt"] is not None:
        why = "its claim lapsed" if domain["releaseReason"] == "expired" else "another organization proved it"
        raise Conflict(f"the domain {domain['domain']} was released ({why}); add it again to claim it anew")
    if not domain["verified"] and domain["expiresAt"] is not None and _lapsed(domain):
        raise Conflict(f"the claim on {domain['domain']} lapsed; add the domain again to claim it anew")


def _lapsed(domain: dict[str, Any]) -> bool:
    expires: datetime = domain["expiresAt"]
    return expires <= datetime.now(UTC)

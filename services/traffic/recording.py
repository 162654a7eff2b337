"""From a reported request to a stored event: the one path of events ingested through the API and
of requests the App edge answered (capture.py).

Each event is checked (its host one of the organization's Apps', its time within the last 7 days
and at most 5 minutes ahead), told to be an agent (by its user agent, then verified) or a human
arriving from an answer engine (a referral); any other human request is dropped, counted and not
kept. The client's address is kept only truncated to its /24 or /48.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from services.traffic.catalog import Agent, Catalog
from services.traffic.hosts import AppHost
from services.traffic.store import Row, TrafficStore
from services.traffic.verification import Address, Claim, Verdict, Verifier

OLDEST = timedelta(days=7)
NEWEST = timedelta(minutes=5)
# Verifications of one batch at once (each may wait on DNS or a key directory).
VERIFY_CONCURRENCY = 64


def client_network(address: Address) -> str:
    """The address's /24 (IPv4) or /48 (IPv6): what is stored and served, never the address."""
    return str(ipaddress.ip_network((address, 24 if address.version == 4 else 48), strict=False))


def time_problem(occurred_at: datetime, now: datetime) -> str | None:
    if occurred_at < now - OLDEST:
        return "occurredAt is more than 7 days old"
    if occurred_at > now + NEWEST:
        return "occurredAt is more than 5 minutes ahead"
    return None


@dataclass
class Outcome:
    accepted: int = 0
    duplicates: int = 0
    dropped: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)

    def reject(self, index: int, message: str) -> None:
        self.rejected.append({"index": index, "message": message})


@dataclass
class Recorder:
    catalog: Catalog
    verifier: Verifier
    store: TrafficStore
    _limit: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(VERIFY_CONCURRENCY))

    async def record(
        self,
        organization_id: str,
        events: Sequence[tuple[int, dict[str, Any], AppHost | None]],
        source: str,
        now: datetime,
        outcome: Outcome,
    ) -> Outcome:
        """Check, classify, verify and store `events` (index, loaded event, its App or None)."""
        candidates: dict[str, tuple[dict[str, Any], AppHost]] = {}
        for index, event, app_host in events:
            if app_host is None:
                outcome.reject(index, f"host {event['host']} is not a domain of the organization's Apps")
            elif problem := time_problem(event["occurred_at"], now):
                outcome.reject(index, problem)
            elif event["id"] in candidates:
                outcome.duplicates += 1
            else:
                candidates[event["id"]] = (event, app_host)
        found = (self._row(event, app_host, source) for event, app_host in candidates.values())
        classified = [item for item in found if item is not None]
        outcome.dropped += len(candidates) - len(classified)
        # Only what needs a lookup (a signature, reverse DNS not cached) waits on one; the rest is settled.
        await asyncio.gather(*(self._verify(*item) for item in classified if item[0]["verified"] is None))
        kept = [row for row, _, _ in classified]
        stored = await self.store.record(organization_id, kept)
        outcome.accepted += stored
        outcome.duplicates += len(kept) - stored
        return outcome

    def _row(
        self, event: dict[str, Any], app_host: AppHost, source: str
    ) -> tuple[Row, Agent | None, Claim | None] | None:
        """The event's row, classified, and verified when that needs no lookup (`verified` None when
        it does: `_verify` finishes it); None for a human no answer engine referred."""
        address = ipaddress.ip_address(event["ip"])  # parsed once: stored truncated, and verified
        row: Row = {
            "id": event["id"],
            "occurred_at": event["occurred_at"],
            "source": source,
            "app_id": app_host.app_id,
            "domain_id": app_host.domain_id,
            "host": event["host"],
            "path": event["path"],
            "method": event["method"],
            "status": event["status"],
            "user_agent": event["user_agent"],
            "client_network": client_network(address),
            "referer": event.get("referer"),
            "bytes": event.get("bytes"),
            "duration_ms": event.get("duration_ms"),
            "bot_id": None,
            "claimed_bot_id": None,
            "operator": None,
            "category": None,
            "verified": False,
            "matched_by": None,
            "spoofed": False,
            "referral_platform": None,
        }
        agent = self.catalog.agent_of(event["user_agent"])
        if agent is None:
            referrer = self.catalog.referrer_of(event.get("referer"))
            if referrer is None:
                return None
            return (
                row | {"kind": "referral", "referral_platform": referrer.platform, "operator": referrer.operator},
                None,
                None,
            )
        claim = Claim(
            address=address,
            method=event["method"],
            url=f"https://{event['host']}{event['path']}",
            at=event["occurred_at"],
            signature=event.get("signature"),
            signature_input=event.get("signature_input"),
            signature_agent=event.get("signature_agent"),
        )
        row |= {"kind": "agent", "claimed_bot_id": agent.id, "verified": None}
        verdict = self.verifier.settled(agent, claim)
        if verdict is not None:
            _apply(row, agent, verdict)
        return row, agent, claim

    async def _verify(self, row: Row, agent: Agent | None, claim: Claim | None) -> None:
        assert agent is not None and claim is not None
        async with self._limit:
            _apply(row, agent, await self.verifier.verify(agent, claim))


def _apply(row: Row, agent: Agent, verdict: Verdict) -> None:
    row |= {"verified": verdict.verified, "matched_by": verdict.matched_by, "spoofed": verdict.spoofed}
    if not verdict.spoofed:
        row |= {"bot_id": agent.id, "operator": agent.operator, "category": agent.category}

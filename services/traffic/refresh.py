"""Rebuild the agent catalog's snapshot (data/agents.json): `python -m services.traffic.refresh`.

The user-agent patterns come from the installed `crawler-user-agents` package (PyPI, the list
maintained at github.com/monperrus/crawler-user-agents), joined with services/traffic/curated.py
(operator, category, robots.txt token, how to verify). With `--ip-ranges` the operators' published
address lists are fetched again from their documented addresses; with `--mirror URL` as well, from
`URL/<host><path>` instead (a copy kept inside a network without the internet, and how the tests
run it). A list that cannot be fetched, or is not a list of networks, keeps what the snapshot had;
without `--ip-ranges` every list is kept, with the date it was fetched. The snapshot records each
source, its version and the date. Upgrade the package (`requirements.lock`) and run this to take a
newer list.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import re
import sys
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from libs.common.encoding import loads
from services.traffic.catalog import SNAPSHOT
from services.traffic.curated import AGENTS, REFERRERS, Curated

PACKAGE = "crawler-user-agents"
# The package's tags for agents that fetch for an AI model or assistant.
AI_TAGS = {"ai-crawler"}
FETCH_TIMEOUT_SECONDS = 30


def package_entries() -> list[dict[str, Any]]:
    import crawleruseragents

    entries: list[dict[str, Any]] = crawleruseragents.CRAWLER_USER_AGENTS_DATA
    return entries


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _ranges(previous: dict[str, Any] | None, url: str | None) -> dict[str, Any]:
    if previous is not None and previous.get("url") == url:
        return previous
    return {"url": url, "prefixes": [], "complete": False, "publishedAt": None, "fetchedAt": None}


def _curated(entry: Curated, package: dict[str, dict[str, Any]], previous: dict[str, Any] | None) -> dict[str, Any]:
    listed = package.get(entry.package_pattern or "")
    patterns = [entry.package_pattern] if listed is not None and entry.package_pattern else []
    return {
        "id": entry.id,
        "name": entry.name,
        "operator": entry.operator,
        "category": entry.category,
        "robotsToken": entry.robots_token,
        "patterns": [*patterns, *entry.patterns],
        "docs": entry.docs,
        "source": "crawler-user-agents+curated" if patterns else "curated",
        "verification": {
            "ipRanges": _ranges(previous and previous["verification"]["ipRanges"], entry.ip_ranges_url),
            "rdnsSuffixes": list(entry.rdns_suffixes),
            "signatureAgents": list(entry.signature_agents),
        },
    }


def _listed_only(entry: dict[str, Any]) -> dict[str, Any]:
    url = entry.get("url")
    operator = (urlsplit(url).hostname or "").removeprefix("www.") if url else ""
    return {
        "id": _slug(entry["pattern"].replace("\\/", "")),
        "name": entry["pattern"].replace("\\", ""),
        "operator": operator or "unknown",
        "category": "other",
        "robotsToken": None,
        "patterns": [entry["pattern"]],
        "docs": url,
        "source": "crawler-user-agents",
        "verification": {"ipRanges": _ranges(None, None), "rdnsSuffixes": [], "signatureAgents": []},
    }


def build(entries: list[dict[str, Any]], previous: dict[str, Any] | None, built_at: datetime) -> dict[str, Any]:
    """The snapshot: every curated agent, then the package's other AI crawlers."""
    package = {entry["pattern"]: entry for entry in entries}
    before = {agent["id"]: agent for agent in (previous or {}).get("agents", [])}
    agents = [_curated(entry, package, before.get(entry.id)) for entry in AGENTS]
    claimed = {entry.package_pattern for entry in AGENTS}
    taken = {agent["id"] for agent in agents}
    for entry in entries:
        if entry["pattern"] in claimed or not AI_TAGS & set(entry.get("tags", ())):
            continue
        agent = _listed_only(entry)
        if agent["id"] not in taken:
            taken.add(agent["id"])
            agents.append(agent)
    return {
        "source": {
            "userAgents": {"package": PACKAGE, "registry": "PyPI", "version": version(PACKAGE)},
            "curation": "services/traffic/curated.py",
            "builtAt": built_at.date().isoformat(),
        },
        "agents": agents,
        "referrers": [
            {"platform": r.platform, "name": r.name, "operator": r.operator, "hosts": list(r.hosts)} for r in REFERRERS
        ],
    }


def mirrored(url: str, mirror: str | None) -> str:
    """Where `url` is read: itself, or its copy under `mirror` (`mirror/<host><path>`)."""
    if mirror is None:
        return url
    parts = urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.hostname}{parts.path}"


def published_ranges(url: str, document: Any, fetched_at: datetime, via: str | None = None) -> dict[str, Any]:
    """An operator's published list (`{"creationTime"?, "prefixes": [{"ipv4Prefix": …} | {"ipv6Prefix": …}]}`),
    taken as complete; ValueError when it holds no network or something else."""
    prefixes = [str(ipaddress.ip_network(p.get("ipv4Prefix") or p.get("ipv6Prefix"))) for p in document["prefixes"]]
    if not prefixes:
        raise ValueError("the list holds no network")
    ranges = {
        "url": url,
        "prefixes": prefixes,
        "complete": True,
        "publishedAt": document.get("creationTime"),
        "fetchedAt": fetched_at.isoformat(),
    }
    return ranges | ({"via": via} if via else {})


async def fetch_ranges(
    session: aiohttp.ClientSession, url: str, fetched_at: datetime, mirror: str | None = None
) -> dict[str, Any]:
    location = mirrored(url, mirror)
    async with session.get(location, timeout=aiohttp.ClientTimeout(total=FETCH_TIMEOUT_SECONDS)) as response:
        response.raise_for_status()
        document = loads(await response.read())
    return published_ranges(url, document, fetched_at, location if mirror else None)


async def refresh_ranges(snapshot: dict[str, Any], now: datetime, mirror: str | None = None) -> list[str]:
    """Fetch every agent's published ranges again; the addresses that could not be fetched."""
    failed = []
    async with aiohttp.ClientSession() as session:
        for agent in snapshot["agents"]:
            ranges = agent["verification"]["ipRanges"]
            if ranges["url"] is None:
                continue
            try:
                agent["verification"]["ipRanges"] = await fetch_ranges(session, ranges["url"], now, mirror)
            except (aiohttp.ClientError, TimeoutError, ValueError, KeyError, TypeError, AttributeError) as exc:
                failed.append(f"{ranges['url']}: {exc}")
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.traffic.refresh", description=__doc__.splitlines()[0])
    parser.add_argument("--ip-ranges", action="store_true", help="fetch the operators' published address lists")
    parser.add_argument("--mirror", help="with --ip-ranges: read each list from MIRROR/<host><path>")
    parser.add_argument("--output", type=Path, default=SNAPSHOT, help=f"where to write (default {SNAPSHOT})")
    args = parser.parse_args(argv)
    previous = loads(args.output.read_bytes()) if args.output.exists() else None
    now = datetime.now(UTC)
    snapshot = build(package_entries(), previous, now)
    if args.ip_ranges:
        for failure in asyncio.run(refresh_ranges(snapshot, now, args.mirror)):
            print(f"not refreshed: {failure}", file=sys.stderr)
    args.output.write_bytes(orjson.dumps(snapshot, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"{len(snapshot['agents'])} agents written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

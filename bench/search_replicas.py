"""Memory of three search replicas serving thirty organizations: requests spread over the
replicas (as a Service balances them: any replica may load any organization) against requests
routed by organization through the gateway (gateway/edge/replicas.py: consistent hashing).

Each organization's index (`--chunks` chunks, real model vectors with noise, as bench.search
makes them) is loaded straight into the search schema. Each of ROUNDS rounds sends every
organization QUERIES_PER_ORG searches; then every replica's worker memory (resident set) and
`search_vector_cache_chunks` are read. Spread: an organization's queries go to each replica in
turn, with an internal token, as a Service's connections would. Routed: queries go through a gateway
whose SEARCH_REPLICAS names the three.

    python -m deploy.stack exec -- python -m bench.search_replicas [--chunks 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import re
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path

import aiohttp

from bench.common import BenchStack, bench_stack, load_average, report, say
from bench.search import base_vectors, load_index
from bench.search_indexing import QUERIES, organization
from libs.common.internal_token import HEADER as INTERNAL_TOKEN_HEADER
from libs.common.internal_token import Organization
from libs.contract.parts import CONTENT, GATEWAY, SEARCH
from libs.local.ports import free_port
from libs.local.processes import Running, start, stop, wait_ready

ORGANIZATIONS = 30
REPLICAS = 3
QUERIES_PER_ORG = 6


def worker_memory_mib(running: Running) -> float:
    """Resident memory of the process group's workers (one a search pod)."""
    master = running.process.pid
    total = 0.0
    for worker in Path(f"/proc/{master}/task/{master}/children").read_text().split():
        status = dict(line.split(":", 1) for line in Path(f"/proc/{worker}/status").read_text().splitlines())
        total += int(status["VmRSS"].split()[0]) / 1024
    return total


def cached_chunks(metrics_port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    match = re.search(r"^search_vector_cache_chunks(?:\{[^}]*\})? ([0-9.e+]+)$", text, flags=re.MULTILINE)
    return int(float(match[1])) if match else 0


async def search_all(targets: list[tuple[str, Callable[[], dict[str, str]]]]) -> None:
    """Send each (url, headers) one search, one at a time (headers made as it goes: internal
    tokens live a minute)."""
    queries = itertools.cycle(QUERIES)
    async with aiohttp.ClientSession() as session:
        for url, headers in targets:
            async with session.post(url, json={"query": next(queries)}, headers=headers()) as answer:
                assert answer.status == 200, (url, answer.status, await answer.text())


def run(stack: BenchStack, organizations: list[tuple[str, str, str]], routed: bool) -> list[tuple[str, str]]:
    ports = {f"search-{n}": free_port() for n in range(REPLICAS)}
    metrics = {name: free_port() for name in ports}
    replicas = [
        start([SEARCH], stack.environ, {**stack.ports, SEARCH.name: port}, None, {SEARCH.name: metrics[name]})[0]
        for name, port in ports.items()
    ]
    urls = [f"http://127.0.0.1:{port}" for port in ports.values()]
    gateway: list[Running] = []
    try:
        wait_ready(replicas)
        if routed:
            port = free_port()
            environ = {**stack.environ, "SEARCH_REPLICAS": ",".join(urls)}
            gateway = start([GATEWAY], environ, {**stack.ports, GATEWAY.name: port}, None, {GATEWAY.name: free_port()})
            wait_ready(gateway)
        targets: list[tuple[str, Callable[[], dict[str, str]]]] = []
        for turn in range(QUERIES_PER_ORG):
            for index, (key, org_id, _product) in enumerate(organizations):
                path = f"/api/v1/content/search/{org_id}"
                if routed:
                    targets.append((f"http://127.0.0.1:{gateway[0].port}{path}", partial(dict, {"x-api-key": key})))
                else:  # each organization's queries go to each replica in turn
                    org = Organization(org_id, org_id, org_id)
                    token = partial(lambda org: {INTERNAL_TOKEN_HEADER: stack.internal_token(org)}, org)
                    targets.append((urls[(index + turn) % REPLICAS] + path, token))
        asyncio.run(search_all(targets))
        memory = [worker_memory_mib(replica) for replica in replicas]
        chunks = [cached_chunks(metrics[name]) for name in ports]
    finally:
        stop(gateway + replicas)
    label = "routed by organization" if routed else "spread over the replicas"
    each_chunks = ", ".join(f"{count:,}" for count in chunks)
    each_memory = ", ".join(f"{mib:.0f}" for mib in memory)
    return [
        (f"{label}: chunks held", f"{sum(chunks):,} ({each_chunks})"),
        (f"{label}: worker memory", f"{sum(memory):,.0f} MiB ({each_memory})   {load_average()}"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.search_replicas", description=__doc__)
    parser.add_argument("--chunks", type=int, default=5000, help="chunks of each organization (default 5,000)")
    args = parser.parse_args()
    rng = random.Random(7)
    with bench_stack((GATEWAY, CONTENT), {"SEARCH_INDEXING": "off"}) as stack:
        base = base_vectors(rng)
        organizations = [asyncio.run(organization(stack, f"replicas-{n}")) for n in range(ORGANIZATIONS)]
        say(f"loading {ORGANIZATIONS} organizations of {args.chunks:,} chunks")
        for _key, org_id, product_id in organizations:
            load_index(stack, org_id, product_id, args.chunks, base, rng)
        rows = run(stack, organizations, routed=False) + run(stack, organizations, routed=True)
    report(f"{REPLICAS} search replicas, {ORGANIZATIONS} organizations of {args.chunks:,} chunks", rows)


if __name__ == "__main__":
    main()

"""What an `Idempotency-Key` costs a POST through the gateway, on real gunicorn processes.

POST /api/v1/apps (an app and its config: two inserts) at concurrency 8, in alternating rounds
without a key and with a fresh key per request (a claim by a Redis script, and the answer
stored in PostgreSQL with those of the same few milliseconds), and the replay of a stored key (a
claim attempt and a read, no upstream call). Alternating rounds share the machine's load alike;
the medians of the rounds are reported, and each round's rate (rounds of a second spread too
widely to compare).

    python -m deploy.stack exec -- python -m bench.idempotency
"""

from __future__ import annotations

import asyncio
import statistics
import uuid
from collections.abc import Callable

from bench.common import Latency, Request, bench_stack, load_average, measure, report, say
from gateway import queries as identity
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.contract.parts import APPS, GATEWAY

ROUNDS = 5
COUNT = 3000
CONCURRENCY = 8


async def seed(dsn: str) -> str:
    async with create_pool(dsn, GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        row = await identity.create_organization(cur, "bench-idempotency", "Bench Idempotency")
        key, _ = await create_api_key(cur, str(row["id"]), "bench", ALL_SCOPES)
    return key


def median_line(results: list[Latency]) -> str:
    p50 = statistics.median(result.p50_ms for result in results)
    p99 = statistics.median(result.p99_ms for result in results)
    rate = statistics.median(result.requests_per_second for result in results)
    failures = sum(result.failures for result in results)
    rounds = ", ".join(f"{result.requests_per_second:.0f}" for result in results)
    return f"p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   {rate:7.0f} req/s   ({failures} failed; rounds {rounds})"


def main() -> None:
    with bench_stack((GATEWAY, APPS)) as stack:
        key = asyncio.run(seed(stack.part_dsn(GATEWAY)))
        url = f"{stack.url('gateway')}/api/v1/apps"

        def posts(keyed: bool) -> list[Request]:
            """COUNT distinct new apps, each with its own key when `keyed`."""
            requests = []
            for _ in range(COUNT):
                name = f"bench {uuid.uuid4().hex}"
                headers = {"x-api-key": key, **({"Idempotency-Key": uuid.uuid4().hex} if keyed else {})}
                requests.append(Request("POST", url, headers, {"name": name}))
            return requests

        def run(requests: list[Request]) -> Latency:
            return measure(requests, concurrency=CONCURRENCY, count=len(requests), warmup=0)

        say("idempotency keys")
        load_before = load_average()
        run(posts(keyed=True)[:200])  # warm every worker's key cache and connections
        results: dict[str, list[Latency]] = {"without": [], "with": [], "replay": []}
        variants: dict[str, Callable[[], list[Request]]] = {
            "without": lambda: posts(keyed=False),
            "with": lambda: posts(keyed=True),
        }
        for _ in range(ROUNDS):
            for name, make in variants.items():
                results[name].append(run(make()))
        stored = posts(keyed=True)[:100]
        run(stored)  # store their answers
        for _ in range(ROUNDS):
            results["replay"].append(run(stored * (COUNT // len(stored))))
        report(
            f"Idempotency-Key on POST /api/v1/apps through the gateway, concurrency {CONCURRENCY},"
            f" median of {ROUNDS} alternating rounds of {COUNT}",
            [
                ("without a key", median_line(results["without"])),
                ("a fresh key on each request", median_line(results["with"])),
                ("the same keys again (replayed)", median_line(results["replay"])),
                ("machine load (uptime, start -> end)", f"{load_before} -> {load_average()}"),
            ],
        )


if __name__ == "__main__":
    main()

"""GET /api/v1/agent-simulation/runs through the gateway (API key) and directly, with wrk.

Target: the gateway keeps at least 60% of the direct throughput, and a cached key costs the
credential check no database or Redis round trip (shown by the key-hash index's scan count
and Redis's command count around the measured run).

    python -m deploy.stack exec -- python -m bench.runs
"""

from __future__ import annotations

import asyncio
import statistics
from datetime import UTC, datetime, timedelta

import psycopg2
import redis

from bench.common import BenchStack, Throughput, bench_stack, report, say, wrk
from deploy.parts import GATEWAY, SIMULATIONS
from gateway import queries as identity
from gateway.auth.api_keys import create_api_key
from gateway.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.common.internal_token import Organization
from services.simulations import queries as simulations

RUNS = "/api/v1/agent-simulation/runs"
RUN_COUNT = 500
ROUNDS = 3
SECONDS = 10
CONNECTIONS = 32


async def seed(stack: BenchStack) -> tuple[str, Organization]:
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        row = await identity.create_organization(cur, "bench", "Bench Organization")
        organization = Organization(str(row["id"]), row["slug"], row["name"])
        key, _ = await create_api_key(cur, organization.id, "bench", ALL_SCOPES)
    async with create_pool(stack.part_dsn(SIMULATIONS), SIMULATIONS.schema, 1, 2) as pool, transaction(pool) as cur:
        task = await simulations.create_task(
            cur, {"organization_id": organization.id, "name": "task", "category": "web"}
        )
        environment = await simulations.create_environment(
            cur, {"organization_id": organization.id, "task_id": task["id"], "name": "env", "agent_config": {"k": 1}}
        )
        started = datetime(2026, 11, 1, tzinfo=UTC)
        for index in range(RUN_COUNT):
            await simulations.create_run(cur, {
                "organization_id": organization.id, "environment_id": environment["id"], "task_id": task["id"],
                "status": "completed", "passed": index % 3 != 0, "overall_score": (index % 100) / 100,
                "tokens_used": 1000 + index, "cost_usd": 0.01, "started_at": started + timedelta(minutes=index),
                "completed_at": started + timedelta(minutes=index, seconds=30), "duration": 30.0,
                "volume_ids": [], "log_s3_keys": [f"logs/{index}"], "metadata": {"i": index},
            })  # fmt: skip
    return key, organization


def key_hash_scans(stack: BenchStack) -> int:
    conn = psycopg2.connect(stack.admin_dsn)
    with conn, conn.cursor() as cur:
        cur.execute(
            "SELECT COALESCE(sum(idx_scan), 0) FROM pg_stat_user_indexes"
            " WHERE schemaname = 'identity' AND indexrelname = 'api_keys_key_hash_key'"
        )
        (scans,) = cur.fetchone()  # type: ignore[misc]
    conn.close()
    return int(scans)


def redis_commands(stack: BenchStack) -> int:
    return int(redis.Redis.from_url(stack.environ["REDIS_URL"]).info("stats")["total_commands_processed"])


def median(results: list[Throughput]) -> Throughput:
    return sorted(results, key=lambda result: result.requests_per_second)[len(results) // 2]


def main() -> None:
    with bench_stack((GATEWAY, SIMULATIONS)) as stack:
        key, organization = asyncio.run(seed(stack))
        gateway_url, direct_url = stack.url("gateway") + RUNS, stack.url("simulations") + RUNS
        wrk(gateway_url, {"x-api-key": key}, seconds=2)  # every gateway worker caches the key
        direct: list[Throughput] = []
        through: list[Throughput] = []
        for round_number in range(1, ROUNDS + 1):
            say(f"round {round_number}/{ROUNDS}")
            direct.append(
                wrk(direct_url, {"X-Internal-Token": stack.internal_token(organization)}, SECONDS, CONNECTIONS)
            )
            scans, commands = key_hash_scans(stack), redis_commands(stack)
            through.append(wrk(gateway_url, {"x-api-key": key}, SECONDS, CONNECTIONS))
            scans, commands = key_hash_scans(stack) - scans, redis_commands(stack) - commands
        d, g = median(direct), median(through)
        served = int(through[-1].requests_per_second * SECONDS)
        report(
            f"GET {RUNS} (50 of {RUN_COUNT} runs per page), wrk -t1 -c{CONNECTIONS} -d{SECONDS}s, median of {ROUNDS}",
            [
                ("direct", f"{d.requests_per_second:8.0f} req/s   p50 {d.p50_ms:6.2f} ms   p99 {d.p99_ms:6.2f} ms"),
                ("gateway", f"{g.requests_per_second:8.0f} req/s   p50 {g.p50_ms:6.2f} ms   p99 {g.p99_ms:6.2f} ms"),
                ("ratio", f"{g.requests_per_second / d.requests_per_second:.2f} of direct (target >= 0.60)"),
                ("ratios by round", ", ".join(f"{t.requests_per_second / s.requests_per_second:.2f}"
                                               for t, s in zip(through, direct, strict=True))),
                ("non-2xx", f"{sum(r.non_2xx for r in direct + through)}"),
                ("key lookups in the last gateway round", f"{scans} key-hash index scans for ~{served} requests"),
                ("Redis commands in the last gateway round",
                 f"{commands} for ~{served} requests (the rate-limit sync, every 250 ms per worker)"),
            ],
        )  # fmt: skip
        say(f"(spread of gateway rounds: {statistics.pstdev([r.requests_per_second for r in through]):.0f} req/s)")


if __name__ == "__main__":
    main()

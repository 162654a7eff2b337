"""GET /api/v1/agent-simulation/runs directly, through nginx and through the gateway, with wrk.

nginx (a plain reverse proxy with upstream keepalive, bench/nginx.py) is the reference: what one
proxy hop costs on this machine; a bare aiohttp proxy (bench/aiohttp_proxy.py, as many workers as
the gateway) is the second: what a hop costs in the gateway's own stack, before anything the
gateway does. Rounds interleave the four paths, on the default page (50 runs,
about 48 KB) and on `?limit=1` (about 1 KB), so the ratios compare like with like.

Targets: the gateway keeps at least 0.70 of direct, and at least 95 % of the bare aiohttp proxy's
ratio of the same run, on the small response; a cached key costs the credential check no database or Redis round trip
(shown by the key-hash index's scan count and Redis's command count around a gateway round).

    python -m deploy.stack exec -- python -m bench.runs
"""

from __future__ import annotations

import asyncio
import statistics
from datetime import UTC, datetime, timedelta

import psycopg2
import redis

from bench.aiohttp_proxy import aiohttp_proxy
from bench.common import BenchStack, Request, Throughput, bench_stack, measure, report, say, wrk
from bench.nginx import nginx_proxy
from gateway import queries as identity
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.common.internal_token import Organization
from libs.contract.parts import GATEWAY, SIMULATIONS
from services.simulations import queries as simulations

RUNS = "/api/v1/agent-simulation/runs"
RESPONSES = {"large": RUNS, "small": RUNS + "?limit=1"}
PATHS = ("direct", "nginx", "aiohttp", "gateway")
RUN_COUNT = 500
ROUNDS = 5
SECONDS = 6
CONNECTIONS = 32
ONE_AT_A_TIME = 2000


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
            await simulations.create_run(
                cur,
                {
                    "organization_id": organization.id,
                    "environment_id": environment["id"],
                    "task_id": task["id"],
                    "status": "completed",
                    "passed": index % 3 != 0,
                    "overall_score": (index % 100) / 100,
                    "tokens_used": 1000 + index,
                    "cost_usd": 0.01,
                    "started_at": started + timedelta(minutes=index),
                    "completed_at": started + timedelta(minutes=index, seconds=30),
                    "duration": 30.0,
                    "volume_ids": [],
                    "log_s3_keys": [f"logs/{index}"],
                    "metadata": {"i": index},
                },
            )
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


def median_by_rate(results: list[Throughput]) -> Throughput:
    return sorted(results, key=lambda result: result.requests_per_second)[len(results) // 2]


def describe(result: Throughput) -> str:
    return f"{result.requests_per_second:8.0f} req/s   p50 {result.p50_ms:6.2f} ms   p99 {result.p99_ms:6.2f} ms"


def ratios(through: list[Throughput], direct: list[Throughput]) -> list[float]:
    """Each round's ratio to the direct run of the same round."""
    return [t.requests_per_second / d.requests_per_second for t, d in zip(through, direct, strict=True)]


def main() -> None:
    with bench_stack((GATEWAY, SIMULATIONS)) as stack:
        key, organization = asyncio.run(seed(stack))
        upstream = f"127.0.0.1:{stack.ports['simulations']}"
        with nginx_proxy(upstream) as nginx_url, aiohttp_proxy(upstream) as aiohttp_url:
            bases = {
                "direct": stack.url("simulations"),
                "nginx": nginx_url,
                "aiohttp": aiohttp_url,
                "gateway": stack.url("gateway"),
            }

            def headers(path: str) -> dict[str, str]:
                # Direct and through the plain proxies, the caller brings the token the gateway would sign.
                if path == "gateway":
                    return {"x-api-key": key}
                return {"X-Internal-Token": stack.internal_token(organization)}

            for path in PATHS:  # every gateway worker caches the key; nginx fills its upstream pool
                wrk(bases[path] + RUNS, headers(path), seconds=2)
            results: dict[tuple[str, str], list[Throughput]] = {
                (size, path): [] for size in RESPONSES for path in PATHS
            }
            scans = commands = served = 0
            for round_number in range(1, ROUNDS + 1):
                say(f"round {round_number}/{ROUNDS}")
                for size, target in RESPONSES.items():
                    for path in PATHS:
                        if path == "gateway":
                            scans, commands = key_hash_scans(stack), redis_commands(stack)
                        result = wrk(bases[path] + target, headers(path), SECONDS, CONNECTIONS)
                        results[size, path].append(result)
                        if path == "gateway":
                            scans, commands = key_hash_scans(stack) - scans, redis_commands(stack) - commands
                            served = int(result.requests_per_second * SECONDS)
            single = {
                path: measure([Request("GET", bases[path] + RESPONSES["small"], headers(path))], count=ONE_AT_A_TIME)
                for path in PATHS
            }
        for size, target in RESPONSES.items():
            direct = results[size, "direct"]
            rows = [(path, describe(median_by_rate(results[size, path]))) for path in PATHS]
            for path in PATHS[1:]:
                by_round = ratios(results[size, path], direct)
                rounds = ", ".join(f"{r:.2f}" for r in by_round)
                rows.append((f"{path} ratio", f"{statistics.median(by_round):.2f} of direct (rounds {rounds})"))
            gateway_to_nginx = ratios(results[size, "gateway"], results[size, "nginx"])
            rows.append(("gateway / nginx", f"{statistics.median(gateway_to_nginx):.2f}"))
            gateway_to_aiohttp = ratios(results[size, "gateway"], results[size, "aiohttp"])
            rows.append(
                ("gateway / bare aiohttp", f"{statistics.median(gateway_to_aiohttp):.2f} (target on small >= 0.95)")
            )
            rows.append(("non-2xx", f"{sum(r.non_2xx for path in PATHS for r in results[size, path])}"))
            report(
                f"GET {target} ({size}), wrk -t1 -c{CONNECTIONS} -d{SECONDS}s, {ROUNDS} interleaved rounds, medians",
                rows,
            )
        direct_p50 = single["direct"].p50_ms
        report(
            f"GET {RESPONSES['small']} one at a time, {ONE_AT_A_TIME} requests",
            [
                *((path, f"p50 {single[path].p50_ms:6.3f} ms   p99 {single[path].p99_ms:6.3f} ms") for path in PATHS),
                *((f"{path} adds", f"{single[path].p50_ms - direct_p50:6.3f} ms to p50") for path in PATHS[1:]),
                ("failures", f"{sum(single[path].failures for path in PATHS)}"),
                ("key lookups in the last gateway round", f"{scans} key-hash index scans for ~{served} requests"),
                (
                    "Redis commands in the last gateway round",
                    f"{commands} for ~{served} requests (the rate-limit sync, every 250 ms per worker)",
                ),
            ],
        )


if __name__ == "__main__":
    main()

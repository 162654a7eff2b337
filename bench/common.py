"""The benchmark harness: the parts as real gunicorn processes on a database of their own,
and two ways to load them — wrk for throughput, an aiohttp client for latency percentiles.

Numbers go in docs/performance.md with the command that produced them. Benchmarks, not unit
tests, check speed targets: a machine's load never turns the test suite red.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import os
import re
import shutil
import statistics
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import psycopg2
from psycopg2 import sql
from psycopg2.extensions import make_dsn

from libs.common import bootstrap as db
from libs.common.internal_token import Caller, Organization, mint
from libs.contract.parts import METRICS_PORT_OFFSET, PARTS, ROOT, Part
from libs.local.ports import free_port
from libs.local.processes import Running, start, stop, wait_ready
from libs.local.stores import DATA, forget_prefix, local_stack

# One database per checkout, on free ports: benchmarks of two checkouts on one machine never meet.
BENCH_DATABASE = "aivis_bench_" + hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]
# Benchmarks measure the service, not the limiter: every request must be admitted.
BENCH_ENVIRON = {"RATE_LIMIT_PER_MINUTE": "100000000", "RATE_LIMIT_BURST": "1000000"}


def say(message: str) -> None:
    print(message, flush=True)


def load_average() -> str:
    """The machine's load, printed beside every result: other work may share the cores."""
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


@dataclass
class BenchStack:
    environ: dict[str, str]
    admin_dsn: str
    ports: dict[str, int]
    running: list[Running] = field(default_factory=list)

    def url(self, part: str) -> str:
        return f"http://127.0.0.1:{self.ports[part]}"

    def metrics_url(self, part: str) -> str:
        """The part's /metrics, on its metrics listener (deploy.run starts it at the port's offset)."""
        return f"http://127.0.0.1:{self.ports[part] + METRICS_PORT_OFFSET}/metrics"

    def part_dsn(self, part: Part) -> str:
        return db.part_dsn(self.admin_dsn, part)

    def worker_memory(self, part: Part) -> list[tuple[float, float]]:
        """(resident MiB, peak resident MiB) of each gunicorn worker of `part`."""
        [running] = [running for running in self.running if running.part is part]
        master = running.process.pid
        memory = []
        for worker in Path(f"/proc/{master}/task/{master}/children").read_text().split():
            status = dict(line.split(":", 1) for line in Path(f"/proc/{worker}/status").read_text().splitlines())
            memory.append((int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024))
        return memory

    def internal_token(self, organization: Organization, product: Any = None) -> str:
        """A token to call a service directly, as the gateway would for an API key of `organization`."""
        caller = Caller("api_key", "bench", organization, frozenset({"simulations:read", "content:read"}), product)
        return mint(self.environ["INTERNAL_TOKEN_SECRET"], caller)


def reset_database(admin: str) -> None:
    """A fresh benchmark database, so every run starts from the same state."""
    conn = psycopg2.connect(make_dsn(admin, dbname="postgres"))
    conn.autocommit = True
    with conn.cursor() as cur:
        name = sql.Identifier(BENCH_DATABASE)
        cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
    conn.close()
    db.setup(admin)


@contextmanager
def bench_stack(parts: Sequence[Part] = PARTS, environ: Mapping[str, str] | None = None) -> Iterator[BenchStack]:
    """Bring up `parts` on free ports against a fresh benchmark database."""
    with local_stack() as base:
        admin = make_dsn(base["DATABASE_URL"], dbname=BENCH_DATABASE)
        reset_database(admin)
        # Streams of their own too: the fresh database's event positions start again from 1.
        prefix = f"bench-{uuid.uuid4().hex[:8]}:"
        merged = {**base, **BENCH_ENVIRON, **(environ or {}), "DATABASE_URL": admin, "REDIS_PREFIX": prefix}
        ports = {part.name: free_port() for part in PARTS}
        DATA.mkdir(exist_ok=True)
        with open(DATA / "bench.log", "ab") as output:
            stack = BenchStack(merged, admin, ports)
            try:
                stack.running = start(parts, merged, ports, output)
                wait_ready(stack.running)
                yield stack
            finally:
                stop(stack.running)
                forget_prefix(merged["REDIS_URL"], prefix)


def copy_rows(cur: psycopg2.extensions.cursor, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Load `rows` into `table` with COPY, 10,000 at a time."""
    for first in range(0, len(rows), 10_000):
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        for row in rows[first : first + 10_000]:
            writer.writerow(["\\N" if value is None else value for value in row])
        buffer.seek(0)
        cur.copy_expert(f"COPY {table} ({', '.join(columns)}) FROM STDIN WITH (FORMAT csv, NULL '\\N')", buffer)


def ensure_program(name: str, package: str, path: str | None = None) -> str:
    """A program from the system's packages; installed with apt-get when missing and possible."""
    found = shutil.which(name, path=path)
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        say(f"installing {name} (apt-get install {package})")
        subprocess.run(["apt-get", "install", "-y", "-q", package], check=True, stdout=subprocess.DEVNULL)
        found = shutil.which(name, path=path)
    if not found:
        raise SystemExit(f"the benchmarks need {name}: install it (Debian/Ubuntu: apt-get install {package})")
    return found


@dataclass(frozen=True)
class Throughput:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    non_2xx: int


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if match is None:
        raise ValueError(f"unexpected wrk latency {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def wrk(url: str, headers: Mapping[str, str], seconds: int = 10, connections: int = 32, threads: int = 1) -> Throughput:
    command = [ensure_program("wrk", "wrk"), f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run([*command, url], check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"\s50%\s+(\S+)", output).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"\s99%\s+(\S+)", output).group(1))  # type: ignore[union-attr]
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return Throughput(rps, p50, p99, int(non_2xx.group(1)) if non_2xx else 0)


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: Mapping[str, str]
    json: Any = None


@dataclass(frozen=True)
class Latency:
    count: int
    p50_ms: float
    p99_ms: float
    requests_per_second: float
    failures: int


async def _measure(requests: Sequence[Request], concurrency: int, count: int, warmup: int) -> Latency:
    timings: list[float] = []
    failures = 0
    next_index = 0

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:

        async def one(request: Request, record: bool) -> None:
            nonlocal failures
            started = time.perf_counter()
            async with session.request(request.method, request.url, headers=request.headers, json=request.json) as resp:
                await resp.read()
                ok = resp.status < 400
            if record:
                timings.append((time.perf_counter() - started) * 1000)
                failures += 0 if ok else 1

        for index in range(warmup):
            await one(requests[index % len(requests)], record=False)

        async def worker() -> None:
            nonlocal next_index
            while next_index < count:
                index = next_index
                next_index += 1
                await one(requests[index % len(requests)], record=True)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    timings.sort()
    return Latency(
        count=len(timings),
        p50_ms=statistics.median(timings),
        p99_ms=timings[min(len(timings) - 1, int(len(timings) * 0.99))],
        requests_per_second=len(timings) / elapsed,
        failures=failures,
    )


def measure(requests: Sequence[Request], concurrency: int = 1, count: int = 500, warmup: int = 50) -> Latency:
    """Latency percentiles of `count` requests cycling through `requests`, `concurrency` at a time."""
    return asyncio.run(_measure(requests, concurrency, count, warmup))


def report(title: str, rows: Sequence[tuple[str, str]]) -> None:
    say(f"\n## {title}")
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        say(f"  {name.ljust(width)}  {value}")

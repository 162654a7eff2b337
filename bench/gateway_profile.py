"""Where a gateway worker's time goes on a proxied request: py-spy on the running gunicorn workers.

The stack of bench.runs (gateway and simulations service), wrk on the small response through the
gateway, and py-spy sampling every gateway worker meanwhile. Prints the share of the workers'
busy samples under each function (inclusive), the largest first. Not part of `make bench`:

    python -m deploy.stack exec -- python -m bench.gateway_profile
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench.common import bench_stack, ensure_program, report, say
from bench.runs import CONNECTIONS, RESPONSES, seed
from libs.contract.parts import GATEWAY, ROOT, SIMULATIONS

SECONDS = 15
RATE = 250  # samples per second and worker
SHOWN = 30
EVERYWHERE = 0.9


def worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


def read_stacks(raw: Path) -> Counter[tuple[str, ...]]:
    """py-spy's raw (collapsed) output: one `frame;frame;... count` line per distinct stack.

    py-spy records busy samples only (without --idle): a worker waiting for work is not in them.
    """
    stacks: Counter[tuple[str, ...]] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        stacks[tuple(stack.split(";"))] += int(count)
    return stacks


def shares(stacks: Counter[tuple[str, ...]]) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """Each function's share of the samples: under it (inclusive) and in it (self), largest first.

    Frames in nearly every sample (gunicorn's and the event loop's own) say nothing and are left out.
    """
    total = sum(stacks.values())
    under: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    for frames, count in stacks.items():
        for name in {short(frame) for frame in frames}:
            under[name] += count
        inside[short(frames[-1])] += count
    inclusive = [(name, count / total) for name, count in under.most_common() if count / total < EVERYWHERE]
    return inclusive, [(name, count / total) for name, count in inside.most_common()]


def short(frame: str) -> str:
    """`function (path/to/module.py:line)` without the line and the site-packages prefix."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rpartition(":")[0]
    return f"{name} ({path.split('site-packages/')[-1].removeprefix(f'{ROOT}/')})"


def main() -> None:
    py_spy = str(Path(sys.executable).with_name("py-spy"))  # a dev dependency of the project
    with bench_stack((GATEWAY, SIMULATIONS)) as stack, tempfile.TemporaryDirectory() as directory:
        key, _ = asyncio.run(seed(stack))
        url = stack.url("gateway") + RESPONSES["small"]
        gateway = next(running for running in stack.running if running.part is GATEWAY)
        load = [ensure_program("wrk", "wrk"), "-t1", f"-c{CONNECTIONS}", f"-d{SECONDS + 4}s", "-H", f"x-api-key: {key}"]
        wrk = subprocess.Popen([*load, url], stdout=subprocess.PIPE, text=True)
        pids = worker_pids(gateway.process.pid)
        say(f"sampling gateway workers {pids} for {SECONDS} s at {RATE}/s under wrk -c{CONNECTIONS} on {url}")
        samplers = [
            subprocess.Popen(
                [
                    py_spy,
                    "record",
                    "--pid",
                    str(pid),
                    "--duration",
                    str(SECONDS),
                    "--rate",
                    str(RATE),
                    "--format",
                    "raw",
                    "--nonblocking",
                    "--output",
                    f"{directory}/{pid}.txt",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
            for pid in pids
        ]
        for sampler in samplers:
            sampler.wait()
        output, _ = wrk.communicate()
        stacks: Counter[tuple[str, ...]] = Counter()
        for pid in pids:
            stacks.update(read_stacks(Path(directory, f"{pid}.txt")))
    rate = next((line for line in output.splitlines() if "Requests/sec" in line), "").strip()
    inclusive, own = shares(stacks)
    busy = sum(stacks.values())
    report(
        f"gateway workers: {busy} busy samples, share under each function (inclusive); wrk: {rate}",
        [(f"{share * 100:5.1f}%", name) for name, share in inclusive[:SHOWN]],
    )
    report("the same samples by the function on top (self)", [(f"{s * 100:5.1f}%", name) for name, s in own[:SHOWN]])


if __name__ == "__main__":
    main()

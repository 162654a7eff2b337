"""Where a part's workers spend their time under load: py-spy sampling the running gunicorn
workers, and the share of the busy samples under each function (bench/gateway_profile.py,
bench/edge_profile.py)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench.common import ensure_program, report, say
from libs.contract.parts import ROOT

RATE = 250  # samples per second and worker
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


def sample(pids: list[int], seconds: int, directory: str) -> Counter[tuple[str, ...]]:
    """The busy stacks of the processes `pids` over `seconds` (py-spy, a dev dependency)."""
    py_spy = str(Path(sys.executable).with_name("py-spy"))
    samplers = [
        subprocess.Popen(
            [
                py_spy,
                "record",
                "--pid",
                str(pid),
                "--duration",
                str(seconds),
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
        )
        for pid in pids
    ]
    for sampler in samplers:
        sampler.wait()
    stacks: Counter[tuple[str, ...]] = Counter()
    for pid in pids:
        stacks.update(read_stacks(Path(directory, f"{pid}.txt")))
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


def profile_under_load(
    name: str, master: int, url: str, header: str, connections: int, seconds: int, shown: int
) -> None:
    """wrk on `url` (with `header`) while py-spy samples the workers of the gunicorn `master` for
    `seconds`; prints each function's share of their busy samples, inclusive, then by the function on top."""
    with tempfile.TemporaryDirectory() as directory:
        load = [ensure_program("wrk", "wrk"), "-t1", f"-c{connections}", f"-d{seconds + 4}s", "-H", header]
        wrk = subprocess.Popen([*load, url], stdout=subprocess.PIPE, text=True)
        pids = worker_pids(master)
        say(f"sampling {name} workers {pids} for {seconds} s at {RATE}/s under wrk -c{connections} on {url}")
        stacks = sample(pids, seconds, directory)
        output, _ = wrk.communicate()
    rate = next((line for line in output.splitlines() if "Requests/sec" in line), "").strip()
    inclusive, own = shares(stacks)
    report(
        f"{name} workers: {sum(stacks.values())} busy samples, share under each function (inclusive); wrk: {rate}",
        [(f"{share * 100:5.1f}%", function) for function, share in inclusive[:shown]],
    )
    report("the same samples by the function on top (self)", [(f"{s * 100:5.1f}%", f) for f, s in own[:shown]])

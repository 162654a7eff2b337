"""Where a gateway worker's time goes on a proxied request: py-spy on the running gunicorn workers.

The stack of bench.runs (gateway and simulations service), wrk on the small response through the
gateway, and py-spy sampling every gateway worker meanwhile. Prints the share of the workers'
busy samples under each function (inclusive), the largest first. Not part of `make bench`:

    python -m deploy.stack exec -- python -m bench.gateway_profile
"""

from __future__ import annotations

import asyncio
import subprocess
import tempfile

from bench.common import bench_stack, ensure_program, report, say
from bench.profiling import RATE, sample, shares, worker_pids
from bench.runs import CONNECTIONS, RESPONSES, seed
from libs.contract.parts import GATEWAY, SIMULATIONS

SECONDS = 15
SHOWN = 30


def main() -> None:
    with bench_stack((GATEWAY, SIMULATIONS)) as stack, tempfile.TemporaryDirectory() as directory:
        key, _ = asyncio.run(seed(stack))
        url = stack.url("gateway") + RESPONSES["small"]
        gateway = next(running for running in stack.running if running.part is GATEWAY)
        load = [ensure_program("wrk", "wrk"), "-t1", f"-c{CONNECTIONS}", f"-d{SECONDS + 4}s", "-H", f"x-api-key: {key}"]
        wrk = subprocess.Popen([*load, url], stdout=subprocess.PIPE, text=True)
        pids = worker_pids(gateway.process.pid)
        say(f"sampling gateway workers {pids} for {SECONDS} s at {RATE}/s under wrk -c{CONNECTIONS} on {url}")
        stacks = sample(pids, SECONDS, directory)
        output, _ = wrk.communicate()
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

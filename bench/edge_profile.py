"""Where an edge worker's time goes on a warm routed page: py-spy on the running gunicorn workers.

The stack of bench.edge (gateway, content, apps, edge), wrk on the App's `/pricing` through the
edge, and py-spy sampling every edge worker meanwhile. Prints the share of the workers' busy
samples under each function (inclusive), the largest first. Not part of `make bench`:

    python -m deploy.stack exec -- python -m bench.edge_profile
"""

from __future__ import annotations

import asyncio
import subprocess
import tempfile

from bench.common import bench_stack, ensure_program, report, say
from bench.edge import CONNECTIONS, HOST, PARTS, site
from bench.profiling import RATE, sample, shares, worker_pids
from libs.contract.parts import EDGE

SECONDS = 15
SHOWN = 35


def main() -> None:
    with bench_stack(PARTS) as stack, tempfile.TemporaryDirectory() as directory:
        asyncio.run(site(stack))
        url = stack.url(EDGE.name) + "/pricing"
        edge = next(running for running in stack.running if running.part.name == EDGE.name)
        load = [ensure_program("wrk", "wrk"), "-t1", f"-c{CONNECTIONS}", f"-d{SECONDS + 4}s", "-H", f"Host: {HOST}"]
        wrk = subprocess.Popen([*load, url], stdout=subprocess.PIPE, text=True)
        pids = worker_pids(edge.process.pid)
        say(f"sampling edge workers {pids} for {SECONDS} s at {RATE}/s under wrk -c{CONNECTIONS} on {url}")
        stacks = sample(pids, SECONDS, directory)
        output, _ = wrk.communicate()
    rate = next((line for line in output.splitlines() if "Requests/sec" in line), "").strip()
    inclusive, own = shares(stacks)
    report(
        f"edge workers: {sum(stacks.values())} busy samples, share under each function (inclusive); wrk: {rate}",
        [(f"{share * 100:5.1f}%", name) for name, share in inclusive[:SHOWN]],
    )
    report("the same samples by the function on top (self)", [(f"{s * 100:5.1f}%", name) for name, s in own[:SHOWN]])


if __name__ == "__main__":
    main()

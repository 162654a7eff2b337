"""Where an edge worker's time goes on a warm routed page: py-spy on the running gunicorn workers.

The stack of bench.edge (gateway, content, apps, edge), wrk on the App's `/pricing` through the
edge, and py-spy sampling every edge worker meanwhile. Prints the share of the workers' busy
samples under each function (inclusive), the largest first. Not part of `make bench`:

    python -m deploy.stack exec -- python -m bench.edge_profile
"""

from __future__ import annotations

import asyncio

from bench.common import bench_stack
from bench.edge import CONNECTIONS, HOST, PARTS, site
from bench.profiling import profile_under_load
from libs.contract.parts import EDGE

SECONDS = 15
SHOWN = 35


def main() -> None:
    with bench_stack(PARTS) as stack:
        asyncio.run(site(stack))
        edge = next(running for running in stack.running if running.part.name == EDGE.name)
        url = stack.url(EDGE.name) + "/pricing"
        profile_under_load("edge", edge.process.pid, url, f"Host: {HOST}", CONNECTIONS, SECONDS, SHOWN)


if __name__ == "__main__":
    main()

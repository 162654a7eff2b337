"""Where a gateway worker's time goes on a proxied request: py-spy on the running gunicorn workers.

The stack of bench.runs (gateway and simulations service), wrk on the small response through the
gateway, and py-spy sampling every gateway worker meanwhile. Prints the share of the workers'
busy samples under each function (inclusive), the largest first. Not part of `make bench`:

    python -m deploy.stack exec -- python -m bench.gateway_profile
"""

from __future__ import annotations

import asyncio

from bench.common import bench_stack
from bench.profiling import profile_under_load
from bench.runs import CONNECTIONS, RESPONSES, seed
from libs.contract.parts import GATEWAY, SIMULATIONS

SECONDS = 15
SHOWN = 30


def main() -> None:
    with bench_stack((GATEWAY, SIMULATIONS)) as stack:
        key, _ = asyncio.run(seed(stack))
        gateway = next(running for running in stack.running if running.part is GATEWAY)
        url = stack.url("gateway") + RESPONSES["small"]
        profile_under_load("gateway", gateway.process.pid, url, f"x-api-key: {key}", CONNECTIONS, SECONDS, SHOWN)


if __name__ == "__main__":
    main()

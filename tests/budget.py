"""The suite's PostgreSQL connection budget, computed once: `make test` sizes the suite's own
PostgreSQL with it (`python -m tests.budget WORKERS` prints max_connections), and the suite refuses
to start on a server smaller than it (tests/conftest.py)."""

from __future__ import annotations

import sys

from libs.contract.parts import PARTS

# What one pool of a test stack may open; a relay holds one more connection of its own.
TEST_POOL_MAX = 8
# At once, a worker may hold its module's stack and one a test starts with other settings, beside
# the end-to-end tests' gunicorn processes (each worker of each part with a pool and a relay).
STACKS_AT_ONCE = 2
# Connections of the run itself (database bootstraps, factories' pools) and the server's own
# reserved for superusers.
RESERVE = 20


def connections_per_worker() -> int:
    """The most connections one pytest worker's stacks can hold at once."""
    per_process = TEST_POOL_MAX + 1
    in_process = STACKS_AT_ONCE * len(PARTS) * per_process
    live = sum(part.workers for part in PARTS) * per_process
    return in_process + live


def max_connections(workers: int) -> int:
    """What the suite's PostgreSQL must allow for `workers` pytest workers."""
    return workers * connections_per_worker() + RESERVE


if __name__ == "__main__":
    print(max_connections(int(sys.argv[1])))

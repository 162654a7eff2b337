"""The connection budget at the autoscalers' maxima, computed from the rendered manifests and the
code: every part of libs/contract/parts.py at its HorizontalPodAutoscaler's maximum plus its
rollout's surge, all at once, each pod's gunicorn workers with their pools and relays, PgBouncer's
replicas and limits (deploy/pgbouncer.py), the migrate Job and an operator.

`python -m deploy.capacity` prints the table; docs/operations.md ("Capacity") holds the same
table between its markers, rewritten by `make manifests`, and tests/deploy/test_capacity.py
fails when it is stale or when the budget does not hold with HEADROOM to spare.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from deploy import pgbouncer
from deploy.cluster import PGBOUNCER
from libs.contract.parts import PARTS, ROOT, Part

# PostgreSQL's defaults, which the platform does not ask an operator to change: connections,
# of which the last few are kept for superusers.
POSTGRES_MAX_CONNECTIONS = 100
SUPERUSER_RESERVED_CONNECTIONS = 3
# The migrate Job's connections at once: ensure_database's, the bootstrap lock's and the
# migrations' (libs/common/bootstrap.py); and an operator's psql straight to PostgreSQL.
MIGRATE_CONNECTIONS = 3
OPERATOR_CONNECTIONS = 2
# A limit is met with this share of it to spare.
HEADROOM = 0.15
DOCS = ROOT / "docs" / "operations.md"
BEGIN, END = "<!-- capacity: begin (python -m deploy.capacity) -->", "<!-- capacity: end -->"


@dataclass(frozen=True)
class PartLoad:
    part: Part
    max_pods: int  # the autoscaler's maximum plus the rollout's surge
    workers: int
    pool: int  # DB_POOL_MAX of each worker
    relays: int  # outbox relays in each worker, each a PgBouncer client of the session pool

    @property
    def clients(self) -> int:
        """PgBouncer clients of the part at its maximum."""
        return self.max_pods * self.workers * (self.pool + self.relays)


@dataclass(frozen=True)
class Budget:
    parts: tuple[PartLoad, ...]
    pgbouncer_pods: int  # replicas plus surge
    max_client_conn: int  # per PgBouncer
    transaction_connections: int  # per PgBouncer, every role's transaction pool together
    session_connections: int  # per PgBouncer: the relays' session pool
    relay_sessions: int  # the outboxes, each with one holder of its lock

    @property
    def clients(self) -> int:
        return sum(load.clients for load in self.parts)

    @property
    def postgres(self) -> int:
        per_bouncer = self.transaction_connections + self.session_connections
        return self.pgbouncer_pods * per_bouncer + MIGRATE_CONNECTIONS + OPERATOR_CONNECTIONS

    @property
    def postgres_usable(self) -> int:
        return POSTGRES_MAX_CONNECTIONS - SUPERUSER_RESERVED_CONNECTIONS

    def problems(self) -> list[str]:
        """What does not hold with HEADROOM to spare (empty: the budget holds)."""
        found = []
        if self.postgres > (1 - HEADROOM) * self.postgres_usable:
            found.append(f"PostgreSQL: {self.postgres} connections of {self.postgres_usable} usable")
        if self.clients > (1 - HEADROOM) * self.max_client_conn:
            found.append(f"PgBouncer: {self.clients} clients on one replica, max_client_conn {self.max_client_conn}")
        if self.relay_sessions + 1 > self.session_connections:
            holders, pool = self.relay_sessions, self.session_connections
            found.append(f"relays: {holders} lock holders and a standby's try, session pool {pool}")
        return found


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: str(item["value"]) for item in container.get("env", []) if "value" in item}


def _surge(deployment: dict[str, Any], replicas: int) -> int:
    surge = deployment["spec"].get("strategy", {}).get("rollingUpdate", {}).get("maxSurge", "25%")
    if isinstance(surge, str):  # a percentage rounds up
        return -(-replicas * int(surge.rstrip("%")) // 100)
    return int(surge)


def _ini(text: str, database: str | None = None) -> dict[str, str]:
    """pgbouncer.ini's [pgbouncer] settings, or a [databases] entry's."""
    if database is None:
        section = text.split("[pgbouncer]", 1)[1]
        return dict(re.findall(r"^(\w+) = (.*)$", section, re.M))
    (line,) = re.findall(rf"^{re.escape(database)} = (.*)$", text, re.M)
    return dict(field.split("=", 1) for field in line.split())


def compute(manifests: dict[str, str]) -> Budget:
    """The budget of rendered manifests (file name -> content, as deploy.manifests.render gives)."""
    objects = [
        doc for content in manifests.values() for doc in yaml.safe_load_all(content) if doc and "metadata" in doc
    ]
    named = {(doc["kind"], doc["metadata"]["name"]): doc for doc in objects}
    loads = []
    for part in PARTS:
        deployment = named["Deployment", part.name]
        autoscaler = named["HorizontalPodAutoscaler", part.name]
        maximum = int(autoscaler["spec"]["maxReplicas"])
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        env = _env(container)
        relays = pgbouncer.outboxes(part) if "SESSION_DATABASE_URL" in env else 0
        pods = maximum + _surge(deployment, maximum)
        loads.append(PartLoad(part, pods, int(env["WORKERS"]), int(env["DB_POOL_MAX"]), relays))
    bouncer = named["Deployment", PGBOUNCER]
    replicas = int(bouncer["spec"]["replicas"])
    # PgBouncer's configuration as its init container writes it from the ConfigMap.
    environ = {**named["ConfigMap", "aivis-config"]["data"], **{f"{p.name.upper()}_DB_PASSWORD": "-" for p in PARTS}}
    ini = pgbouncer.render(environ, Path("/etc/pgbouncer"), "-")["pgbouncer.ini"]
    settings = _ini(ini)
    sessions = _ini(ini, environ["POSTGRES_DB"] + pgbouncer.SESSION_DATABASE_SUFFIX)
    return Budget(
        parts=tuple(loads),
        pgbouncer_pods=replicas + _surge(bouncer, replicas),
        max_client_conn=int(settings["max_client_conn"]),
        transaction_connections=int(settings["max_db_connections"]),
        session_connections=int(sessions["max_db_connections"]),
        relay_sessions=sum(pgbouncer.outboxes(part) for part in PARTS),
    )


def table(budget: Budget) -> str:
    """The budget as docs/operations.md shows it (Markdown)."""
    rows = [
        "| part | pods at most (HPA maximum + surge) | workers a pod | pool a worker (`DB_POOL_MAX`) "
        "| relays a worker | PgBouncer clients |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for load in budget.parts:
        rows.append(
            f"| {load.part.name} | {load.max_pods} | {load.workers} | {load.pool} | {load.relays} | {load.clients:,} |"
        )
    per_bouncer = budget.transaction_connections + budget.session_connections
    limit, share = budget.max_client_conn, budget.postgres / budget.postgres_usable
    rows += [
        f"| **PgBouncer clients** (all may land on one replica) | | | | | **{budget.clients:,}** of "
        f"`max_client_conn` {limit:,} ({budget.clients / limit:.0%}) |",
        "",
        "| PostgreSQL connections | count |",
        "|---|--:|",
        f"| PgBouncer: {budget.pgbouncer_pods} pods at most × (transaction pools {budget.transaction_connections}"
        f" + relays' session pool {budget.session_connections}) | {budget.pgbouncer_pods * per_bouncer} |",
        f"| migrate Job | {MIGRATE_CONNECTIONS} |",
        f"| an operator's `psql` | {OPERATOR_CONNECTIONS} |",
        f"| **total** of {budget.postgres_usable} usable ({POSTGRES_MAX_CONNECTIONS} `max_connections` −"
        f" {SUPERUSER_RESERVED_CONNECTIONS} reserved) | **{budget.postgres}** ({share:.0%}) |",
        "",
        f"The relays' locks: {budget.relay_sessions} outboxes, one holder each, in a session pool of"
        f" {budget.session_connections} per PgBouncer; every other relay is a standby without a connection.",
    ]
    return "\n".join(rows) + "\n"


def with_table(doc: str, budget: Budget) -> str:
    """`doc` with the text between the markers replaced by the budget's table."""
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    return doc[:start] + "\n" + table(budget) + doc[end:]


def main(argv: list[str]) -> int:
    from deploy.manifests import render

    argparse.ArgumentParser(prog="python -m deploy.capacity", description=__doc__).parse_args(argv)
    budget = compute(render())
    print(table(budget), end="")
    for problem in budget.problems():
        print(f"does not hold with {HEADROOM:.0%} headroom: {problem}", file=sys.stderr)
    return 1 if budget.problems() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""PgBouncer's metrics for Prometheus: the sidecar of each PgBouncer pod.

`python -m deploy.pgbouncer_exporter` serves `/metrics` on `--listen`, reading PgBouncer's admin
console (`SHOW POOLS`, `SHOW DATABASES`, `SHOW LISTS`, `SHOW CONFIG`) at each scrape as the stats
user that deploy/pgbouncer.py writes with a password of the pod's own. Debian's
prometheus-pgbouncer-exporter (1.7) reads `SHOW STATS` columns that PgBouncer removed in 1.8 and
fails every scrape against bookworm's PgBouncer 1.18; it also exposes neither server
connections nor waiting times, which the alerts need.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg2
import psycopg2.extras
from prometheus_client import start_http_server
from prometheus_client.core import REGISTRY, GaugeMetricFamily
from prometheus_client.registry import Collector

from libs.common.logs import configure_logging

log = logging.getLogger("aivis.pgbouncer_exporter")

# SHOW POOLS column -> (metric, help), labelled by database and user.
POOL_GAUGES = {
    "cl_active": ("pgbouncer_pool_clients_active", "Client connections linked to a server connection"),
    "cl_waiting": ("pgbouncer_pool_clients_waiting", "Client connections waiting for a server connection"),
    "sv_active": ("pgbouncer_pool_servers_active", "Server connections linked to a client"),
    "sv_idle": ("pgbouncer_pool_servers_idle", "Server connections idle and ready for a client"),
}


class PgBouncerCollector(Collector):
    def __init__(self, host: str, port: int, user: str, password_file: Path) -> None:
        self._dsn = {"host": host, "port": port, "user": user, "dbname": "pgbouncer", "connect_timeout": 5}
        self._password_file = password_file

    def _rows(self, cur: Any, command: str) -> list[dict[str, Any]]:
        cur.execute(command)
        return [dict(row) for row in cur.fetchall()]

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("pgbouncer_up", "Whether PgBouncer's admin console answered this scrape")
        try:
            password = self._password_file.read_text().strip()
            with contextlib.closing(psycopg2.connect(password=password, **self._dsn)) as conn:
                conn.autocommit = True  # the admin console knows no transactions
                with conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor) as cur:
                    pools = self._rows(cur, "SHOW POOLS")
                    databases = self._rows(cur, "SHOW DATABASES")
                    lists = {row["list"]: int(row["items"]) for row in self._rows(cur, "SHOW LISTS")}
                    config = {row["key"]: row["value"] for row in self._rows(cur, "SHOW CONFIG")}
        except (OSError, psycopg2.Error) as exc:
            log.warning("PgBouncer's admin console did not answer: %s", str(exc).strip())
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from self._pools([pool for pool in pools if pool["database"] != "pgbouncer"])
        yield from self._databases([db for db in databases if db["name"] != "pgbouncer"])
        clients = GaugeMetricFamily("pgbouncer_client_connections", "Client connections PgBouncer holds")
        clients.add_metric([], lists.get("used_clients", 0))
        limit = GaugeMetricFamily("pgbouncer_max_client_connections", "max_client_conn")
        limit.add_metric([], float(config["max_client_conn"]))
        yield clients
        yield limit

    def _pools(self, pools: list[dict[str, Any]]) -> Iterator[GaugeMetricFamily]:
        labels = ["database", "user"]
        for column, (name, documentation) in POOL_GAUGES.items():
            gauge = GaugeMetricFamily(name, documentation, labels=labels)
            for pool in pools:
                gauge.add_metric([pool["database"], pool["user"]], float(pool[column]))
            yield gauge
        wait = GaugeMetricFamily(
            "pgbouncer_pool_client_maxwait_seconds", "How long the oldest waiting client has waited", labels=labels
        )
        for pool in pools:
            wait.add_metric([pool["database"], pool["user"]], pool["maxwait"] + pool.get("maxwait_us", 0) / 1e6)
        yield wait

    def _databases(self, databases: list[dict[str, Any]]) -> Iterator[GaugeMetricFamily]:
        current = GaugeMetricFamily(
            "pgbouncer_database_server_connections", "Server connections of a database entry", labels=["database"]
        )
        limit = GaugeMetricFamily(
            "pgbouncer_database_max_server_connections",
            "max_db_connections of a database entry (0: no limit)",
            labels=["database"],
        )
        for database in databases:
            current.add_metric([database["name"]], float(database["current_connections"]))
            limit.add_metric([database["name"]], float(database["max_connections"]))
        yield current
        yield limit


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.pgbouncer_exporter",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--listen", default="0.0.0.0:9127", help="where to serve /metrics (default 0.0.0.0:9127)")
    parser.add_argument("--pgbouncer", default="127.0.0.1:6432", help="PgBouncer's address (default 127.0.0.1:6432)")
    parser.add_argument("--user", required=True, help="a user of PgBouncer's stats_users")
    parser.add_argument("--password-file", type=Path, required=True, help="the file holding its password")
    args = parser.parse_args(argv)
    configure_logging("pgbouncer-exporter", "INFO")
    host, _, port = args.pgbouncer.rpartition(":")
    REGISTRY.register(PgBouncerCollector(host, int(port), args.user, args.password_file))
    listen_host, _, listen_port = args.listen.rpartition(":")
    server, thread = start_http_server(int(listen_port), addr=listen_host)
    log.info("serving PgBouncer's metrics on %s", args.listen)
    thread.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

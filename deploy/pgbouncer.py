"""PgBouncer's configuration, written from the environment by its pod's init container.

`python -m deploy.pgbouncer DIRECTORY` writes `pgbouncer.ini`, `userlist.txt` and `stats-password` (mode 0600)
from `POSTGRES_HOST`, `POSTGRES_PORT`, `POSTGRES_DB`, `PGBOUNCER_PORT` and each part's
`<PART>_DB_PASSWORD` (the same secret keys the migrate Job sets the roles' passwords from, so a
password lives in one place). PgBouncer itself runs from its own image on that directory.

Transaction pooling: a server connection belongs to a client for one transaction, so nothing
may rely on session state across transactions. Parts get their schema and time zone from their
role's defaults (libs/common/bootstrap.py), since PgBouncer cannot pass `options` on; they use no prepared
statements, `LISTEN` or session advisory locks. The outbox relays' lock is a session lock: they
connect to a second database entry, `<database>_sessions`, pooled by session (`SESSION_DATABASE_URL`),
whose few server connections serve the lock holders (a standby relay holds none,
libs/common/relay.py), reset with `DISCARD ALL` before another client gets one so no lock
outlives its holder. docs/operations.md, "Capacity", has the arithmetic of the limits below
(deploy/capacity.py).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Mapping
from pathlib import Path

from libs.common.settings import Env
from libs.contract.parts import CONTENT, GATEWAY, PARTS, WEBHOOK_SOURCES, Part

# Server connections to PostgreSQL per PgBouncer replica, over every role together.
MAX_DB_CONNECTIONS = 25
# Per role: a part's share when the others are idle.
POOL_SIZE = 12
# Client connections per replica: every worker's pool (DB_POOL_MAX) and relays at the HPAs'
# maxima, with room to spare (deploy/capacity.py).
MAX_CLIENT_CONNECTIONS = 2500
# What it reads from the ConfigMap (besides the parts' passwords from the secret).
SETTINGS = ("POSTGRES_HOST", "POSTGRES_PORT", "POSTGRES_DB", "PGBOUNCER_PORT")
# The relays' database entry, pooled by session.
SESSION_DATABASE_SUFFIX = "_sessions"
# The parts that publish an event stream of their own (content's changes, the gateway's
# products) besides the webhook outbox of WEBHOOK_SOURCES.
STREAM_PUBLISHERS: tuple[Part, ...] = (GATEWAY, CONTENT)
# Per role in the session pool: its outboxes' holders and a standby's try.
SESSION_POOL_SIZE = 3
# The metrics sidecar's user of the admin console (SHOW commands only), and its password's file,
# made afresh by each pod's configuration step.
STATS_USER = "aivis_stats"
STATS_PASSWORD_FILE = "stats-password"
# Standbys trying for a lock at the same moment, beyond the holders.
STANDBY_TRIES = 2


def outboxes(part: Part) -> int:
    """The outboxes whose relay every worker of `part` runs (one lock, so one holder, each)."""
    if not part.relays:
        return 0
    return max(1, (part in STREAM_PUBLISHERS) + (part in WEBHOOK_SOURCES))


def session_connections() -> int:
    """Server connections of the session pool per replica: every holder may be on this one."""
    return sum(outboxes(part) for part in PARTS) + STANDBY_TRIES


INI = """\
[databases]
{database} = host={host} port={port} dbname={database}
{database}{sessions} = host={host} port={port} dbname={database} pool_mode=session {session_limits}

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = {listen_port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = {directory}/userlist.txt
stats_users = {stats_user}
pool_mode = transaction
max_client_conn = {max_clients}
default_pool_size = {pool_size}
max_db_connections = {max_db}
; Used by the session pool only (transaction pooling skips it): a lock never outlives its client.
server_reset_query = DISCARD ALL
ignore_startup_parameters = extra_float_digits,options
server_lifetime = 3600
server_idle_timeout = 60
query_wait_timeout = 30
log_connections = 0
log_disconnections = 0
stats_period = 60
; A client gone without a goodbye (its node failed) frees its session, and the relay's lock, in
; about a minute rather than the kernel's two hours.
tcp_keepalive = 1
tcp_keepidle = 30
tcp_keepintvl = 10
tcp_keepcnt = 3
"""


def _quoted(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def render(environ: Mapping[str, str], directory: Path, stats_password: str) -> dict[str, str]:
    """File name -> content of PgBouncer's configuration in `directory`, with the metrics
    sidecar's user (STATS_USER, a PgBouncer user only: PostgreSQL does not know it) and its
    password (`stats-password`, read by deploy/pgbouncer_exporter.py)."""
    env = Env(environ)
    users = "".join(f"{_quoted(part.role)} {_quoted(env.text(f'{part.name.upper()}_DB_PASSWORD'))}\n" for part in PARTS)
    users += f"{_quoted(STATS_USER)} {_quoted(stats_password)}\n"
    ini = INI.format(
        database=env.text("POSTGRES_DB", "aivis"),
        host=env.text("POSTGRES_HOST"),
        port=env.integer("POSTGRES_PORT", 5432, minimum=1),
        listen_port=env.integer("PGBOUNCER_PORT", 6432, minimum=1),
        directory=directory,
        max_clients=MAX_CLIENT_CONNECTIONS,
        pool_size=POOL_SIZE,
        max_db=MAX_DB_CONNECTIONS,
        sessions=SESSION_DATABASE_SUFFIX,
        session_limits=f"pool_size={SESSION_POOL_SIZE} max_db_connections={session_connections()}",
        stats_user=STATS_USER,
    )
    return {"pgbouncer.ini": ini, "userlist.txt": users, STATS_PASSWORD_FILE: stats_password + "\n"}


def write(environ: Mapping[str, str], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in render(environ, directory, secrets.token_urlsafe(32)).items():
        path = directory / name
        path.touch(mode=0o600)
        path.write_text(content)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.pgbouncer", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("directory", type=Path, help="where to write pgbouncer.ini and userlist.txt")
    args = parser.parse_args(argv)
    write(os.environ, args.directory)
    print(f"PgBouncer configuration written to {args.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

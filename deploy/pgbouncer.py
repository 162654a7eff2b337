"""PgBouncer's configuration, written from the environment by its pod's init container.

`python -m deploy.pgbouncer DIRECTORY` writes `pgbouncer.ini` and `userlist.txt` (mode 0600)
from `POSTGRES_HOST`, `POSTGRES_PORT`, `POSTGRES_DB`, `PGBOUNCER_PORT` and each part's
`<PART>_DB_PASSWORD` (the same secret keys the migrate Job sets the roles' passwords from, so a
password lives in one place). PgBouncer itself runs from its own image on that directory.

Transaction pooling: a server connection belongs to a client for one transaction, so nothing
may rely on session state across transactions. Parts get their schema and time zone from their
role's defaults (libs/common/bootstrap.py), since PgBouncer cannot pass `options` on; they use no prepared
statements, `LISTEN` or session advisory locks. The outbox relay's lock is a session lock and
connects past PgBouncer (`SESSION_DATABASE_URL`). docs/operations.md, "Capacity", has the
arithmetic of the limits below.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from libs.common.settings import Env
from libs.contract.parts import PARTS

# Server connections to PostgreSQL per PgBouncer replica, over every role together.
MAX_DB_CONNECTIONS = 30
# Per role: a part's share when the others are idle.
POOL_SIZE = 15
# Client connections per replica: every worker's pool (DB_POOL_MAX) at the HPAs' maxima.
MAX_CLIENT_CONNECTIONS = 2500

INI = """\
[databases]
{database} = host={host} port={port} dbname={database}

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = {listen_port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = {directory}/userlist.txt
pool_mode = transaction
max_client_conn = {max_clients}
default_pool_size = {pool_size}
max_db_connections = {max_db}
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
server_lifetime = 3600
server_idle_timeout = 60
query_wait_timeout = 30
log_connections = 0
log_disconnections = 0
stats_period = 60
"""


def _quoted(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def render(environ: Mapping[str, str], directory: Path) -> dict[str, str]:
    """File name -> content of PgBouncer's configuration in `directory`."""
    env = Env(environ)
    users = "".join(f"{_quoted(part.role)} {_quoted(env.text(f'{part.name.upper()}_DB_PASSWORD'))}\n" for part in PARTS)
    ini = INI.format(
        database=env.text("POSTGRES_DB", "aivis"),
        host=env.text("POSTGRES_HOST"),
        port=env.integer("POSTGRES_PORT", 5432, minimum=1),
        listen_port=env.integer("PGBOUNCER_PORT", 6432, minimum=1),
        directory=directory,
        max_clients=MAX_CLIENT_CONNECTIONS,
        pool_size=POOL_SIZE,
        max_db=MAX_DB_CONNECTIONS,
    )
    return {"pgbouncer.ini": ini, "userlist.txt": users}


def write(environ: Mapping[str, str], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in render(environ, directory).items():
        path = directory / name
        path.touch(mode=0o600)
        path.write_text(content)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.pgbouncer", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("directory", type=Path, help="where to write pgbouncer.ini and userlist.txt")
    args = parser.parse_args(argv)
    write(os.environ, args.directory)
    print(f"PgBouncer configuration written to {args.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The database bootstrap's commands (libs/common/bootstrap.py).

`python -m deploy.db setup` with DATABASE_URL pointing at an administrative user (one that can
create roles, or that already has them). Safe to run again and from several processes at once.

`python -m deploy.db wait PART` with DATABASE_URL of that part's role: returns once the part's
schema holds every migration of this code, so a new pod never serves against an old schema
(the init container of each Deployment).
"""

from __future__ import annotations

import argparse
import sys

from libs.common.bootstrap import admin_url, setup, wait_for_migrations
from libs.contract.parts import PARTS


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.db", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("setup", help="roles, schemas and every migration (DATABASE_URL: an administrator)")
    wait = commands.add_parser("wait", help="wait until a part's schema is migrated (DATABASE_URL: its role)")
    wait.add_argument("part", choices=[part.name for part in PARTS])
    wait.add_argument("--timeout", type=float, default=600.0, help="seconds before giving up (default 600)")
    args = parser.parse_args(argv)
    if args.command == "wait":
        part = next(part for part in PARTS if part.name == args.part)
        pending = wait_for_migrations(admin_url(), part, args.timeout)
        if pending:
            print(f"{part.name}: still pending after {args.timeout:g}s: {', '.join(pending)}", file=sys.stderr)
            return 1
        print(f"{part.name}: schema up to date")
        return 0
    for name, versions in setup(admin_url()).items():
        print(f"{name}: {', '.join(versions) if versions else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

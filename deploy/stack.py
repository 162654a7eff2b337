"""`python -m deploy.stack exec [--own-postgres N] -- CMD...`: CMD with the stores of a local run up
and the environment set (libs/local/stores.py: found, or started under `.data/`, and local
secrets). With `--own-postgres N`, CMD gets a throwaway PostgreSQL of its own allowing N
connections instead (`make test`: the suite never competes with `make run` for connections)."""

from __future__ import annotations

import argparse
import subprocess
import sys

from libs.local.stores import local_stack


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.stack", usage="%(prog)s exec [--own-postgres N] -- CMD...")
    parser.add_argument("verb", choices=["exec"])
    parser.add_argument(
        "--own-postgres", type=int, default=0, metavar="N", help="a throwaway PostgreSQL, N connections"
    )
    split = argv.index("--") if "--" in argv else len(argv)
    args, command = parser.parse_args(argv[:split]), argv[split + 1 :]
    if not command:
        parser.error("a command to run is required after --")
    with local_stack(own_postgres=args.own_postgres) as environ:
        return subprocess.run(command, env=environ, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

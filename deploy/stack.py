"""`python -m deploy.stack exec -- CMD...`: CMD with the stores of a local run up and the
environment set (libs/local/stores.py: found, or started under `.data/`, and local secrets)."""

from __future__ import annotations

import subprocess
import sys

from libs.local.stores import local_stack


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "exec" or argv[1] != "--":
        print("usage: python -m deploy.stack exec -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    with local_stack() as environ:
        return subprocess.run(argv[2:], env=environ, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

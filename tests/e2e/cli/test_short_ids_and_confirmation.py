"""Through the installed `aivis`: webhook endpoints and deliveries named by their short ids, a
delete that asks on a terminal (and `--yes`), and a domain not verified exiting 8."""

from __future__ import annotations

import os
import pty
import subprocess
import uuid

from tests.e2e.cli.conftest import AIVIS, Cli

EXIT_NOT_VERIFIED = 8


def on_a_terminal(cli: Cli, answer: str, *args: str) -> tuple[int, str]:
    """`aivis ARGS` with stdin and stdout a terminal, typing `answer`; its exit code and what it showed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([AIVIS, *args], env=cli.environ(), stdin=follower, stdout=follower, stderr=follower)
    os.close(follower)
    shown = b""
    os.write(leader, answer.encode() + b"\n")
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the command ended and closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return process.wait(timeout=60), shown.decode(errors="replace")


def test_webhooks_by_short_id_and_a_delete_that_asks(cli: Cli):
    endpoint = cli.json("webhooks", "create", f"https://hooks-{uuid.uuid4().hex[:6]}.example.com/in")
    short = endpoint["id"][:8]
    assert cli.json("webhooks", "get", short)["id"] == endpoint["id"]
    sent = cli.json("webhooks", "test", short)
    listed = cli.ok("webhooks", "deliveries", short)
    assert listed.startswith(sent["id"] + "\t")  # piped: full ids
    retried = cli.json("webhooks", "retry", short, sent["id"][:8])
    assert retried["id"] == sent["id"]
    code, shown = on_a_terminal(cli, "n", "webhooks", "delete", short)
    assert code == 1 and "[y/N]" in shown and "cancelled: nothing was changed" in shown
    assert cli.json("webhooks", "get", short)["enabled"] is True  # still there
    code, shown = on_a_terminal(cli, "y", "webhooks", "delete", short)
    assert code == 0, shown
    assert "no webhook endpoint" in cli.fails(4, "webhooks", "get", short)


def test_a_domain_not_verified_exits_8(cli: Cli):
    app = cli.json("apps", "create", "--name", f"Verify {uuid.uuid4().hex[:6]}")
    hostname = f"docs-{uuid.uuid4().hex[:8]}.example.com"
    cli.ok("domains", "add", app["id"][:8], hostname)
    stderr = cli.fails(EXIT_NOT_VERIFIED, "domains", "verify", app["id"][:8], hostname)
    assert stderr.startswith(f"error: {hostname} is not verified: ")

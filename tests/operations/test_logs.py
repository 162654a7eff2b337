"""Log lines: ISO 8601 instants with a zone, and access lines that say who called, never a secret."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from datetime import datetime

from gateway.identity.auth.sessions import SESSION_COOKIE
from libs.common.logs import IsoJsonFormatter
from libs.contract.parts import ROOT
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


def formatted(formatter: logging.Formatter) -> dict:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    return dict(json.loads(formatter.format(record)))


def test_times_are_iso_8601_with_a_zone_in_ours_and_gunicorns_lines():
    config = json.loads((ROOT / "deploy/gunicorn-logging.json").read_text())["formatters"]["json"]
    assert config["()"] == "libs.common.logs.IsoJsonFormatter"
    arguments = {name: value for name, value in config.items() if name != "()"}
    ours = IsoJsonFormatter("{asctime}{levelname}{name}{message}", style="{", rename_fields={"asctime": "time"})
    for formatter in (ours, IsoJsonFormatter(**arguments)):
        line = formatted(formatter)
        instant = datetime.fromisoformat(line["time"])
        assert instant.utcoffset() is not None and line["time"].endswith("+00:00"), line["time"]
        assert "T" in line["time"] and line["message"] == "hello"


def access_lines(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "aivis.access" and record.path == RUNS]


async def test_access_lines_name_the_organization_credential_and_key_prefix(caplog, stack, identity: IdentityFactory):
    caplog.set_level(logging.INFO, logger="aivis.access")
    org = await identity.organization()
    key = await identity.api_key(org)
    user = await identity.user(org)
    await stack.gateway.get(RUNS, headers={"x-api-key": key})
    await stack.gateway.get(RUNS, headers={"Authorization": f"Bearer {identity.bearer(user, org)}"})
    await stack.gateway.get(RUNS, headers={"Cookie": f"{SESSION_COOKIE}={await identity.session(user, org)}"})
    await stack.gateway.get(RUNS, headers={"x-api-key": key[:-2] + "xx"})
    records = [vars(record) for record in access_lines(caplog)]
    # Each forwarded request: the service's line (its internal caller), then the gateway's.
    assert [(r["status"], r.get("credential"), r.get("organization_id"), r.get("key_prefix")) for r in records] == [
        (200, "internal:api_key", org.id, None),
        (200, "api_key", org.id, key[:12]),
        (200, "internal:user", org.id, None),
        (200, "bearer", org.id, None),
        (200, "internal:user", org.id, None),
        (200, "session", org.id, None),
        (401, None, None, None),
    ]
    for record in records:
        assert key not in json.dumps({name: str(value) for name, value in record.items()})


# A part's process as gunicorn runs it: a warning, an exception in a finaliser and an uncaught one.
NOISY_PROCESS = """
import gc, warnings
from libs.common.logs import configure_logging
configure_logging("noisy", "INFO")

class Finalised:
    def __del__(self):
        raise RuntimeError("failed in a finaliser")

warnings.warn("Invalid transaction status on released connection: 2", ResourceWarning)
Finalised()
gc.collect()
raise SystemError("uncaught")
"""


def test_every_line_a_part_writes_on_stdout_and_stderr_is_json():
    ran = subprocess.run(
        [sys.executable, "-W", "always", "-c", NOISY_PROCESS], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    lines = [line for line in (ran.stdout + ran.stderr).splitlines() if line.strip()]
    assert [line for line in lines if not is_json(line)] == []
    messages = " ".join(json.loads(line)["message"] for line in lines)
    for said in ("Invalid transaction status", "failed in a finaliser", "uncaught"):
        assert said in messages
    assert ran.returncode != 0


def is_json(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False

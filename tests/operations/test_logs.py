"""Log lines: ISO 8601 instants with a zone, and access lines that say who called, never a secret."""

from __future__ import annotations

import json
import logging
from datetime import datetime

from gateway.auth.sessions import SESSION_COOKIE
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

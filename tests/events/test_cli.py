"""The installed `aivis` against the test stack's gateway: `aivis webhooks ...` and `aivis audit list`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.events.test_audit import until_audited

AIVIS = str(Path(sys.executable).parent / "aivis")


async def aivis(tenant: Tenant, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    environ = {key: value for key, value in os.environ.items() if not key.startswith("AIVIS_")}
    environ.update(
        AIVIS_CONFIG_DIR=str(tmp_path),
        AIVIS_BASE_URL=str(tenant.gateway.make_url("")).rstrip("/"),
        AIVIS_API_KEY=tenant.key,
    )
    process = await asyncio.create_subprocess_exec(
        AIVIS, *args, env=environ, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


async def ok_json(tenant: Tenant, tmp_path: Path, *args: str) -> Any:
    code, out, err = await aivis(tenant, tmp_path, *args, "--json")
    assert code == 0, (args, out, err)
    return json.loads(out)


async def test_webhooks_from_the_command_line(tenant: Tenant, tmp_path: Path, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    created = await ok_json(tenant, tmp_path, "webhooks", "create", receiver.url, "--event", "api_key.created")
    assert created["secret"].startswith("whsec_") and created["events"] == ["api_key.created"]
    listed = await ok_json(tenant, tmp_path, "webhooks", "list")
    assert [item["id"] for item in listed["items"]] == [created["id"]]
    ping = await ok_json(tenant, tmp_path, "webhooks", "test", created["id"])
    assert ping["eventType"] == "ping"
    await receiver.deliveries(1)
    assert receiver.verified(created["secret"])["type"] == "ping"
    deliveries = await ok_json(tenant, tmp_path, "webhooks", "deliveries", created["id"])
    assert [item["id"] for item in deliveries["items"]] == [ping["id"]]
    updated = await ok_json(tenant, tmp_path, "webhooks", "update", created["id"], "--disable")
    assert updated["enabled"] is False
    code, _, err = await aivis(tenant, tmp_path, "webhooks", "update", created["id"])
    assert code == 2 and "nothing to change" in err


async def test_audit_list_from_the_command_line(tenant: Tenant, tmp_path: Path):
    await tenant.call("POST", "/api/v1/webhook-endpoints", json={"url": "https://example.com/a", "events": ["*"]})
    await until_audited(tenant, 1)
    listed = await ok_json(tenant, tmp_path, "audit", "list", "--action", "webhook_endpoint.created")
    assert [item["action"] for item in listed["items"]] == ["webhook_endpoint.created"]
    assert listed["items"][0]["actor"]["label"] == tenant.key[:12]
    code, out, err = await aivis(tenant, tmp_path, "audit", "list")
    assert code == 0, err
    assert "webhook_endpoint.created" in out

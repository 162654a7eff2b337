"""`aivis webhooks listen` and `aivis webhooks trigger`, the installed command against the test
stack: events reach a local application through the relay, signed as the API sent them, and the
local answer is the delivery's; Ctrl-C deletes the endpoint `listen` made."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.events.test_cli import AIVIS, aivis, ok_json
from tests.factories import eventually


async def start_listen(tenant: Tenant, tmp_path: Path, forward_to: str) -> tuple[asyncio.subprocess.Process, str]:
    """A running `aivis webhooks listen` and the signing secret it printed."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("AIVIS_")}
    environ.update(
        AIVIS_CONFIG_DIR=str(tmp_path),
        AIVIS_BASE_URL=str(tenant.gateway.make_url("")).rstrip("/"),
        AIVIS_API_KEY=tenant.key,
    )
    process = await asyncio.create_subprocess_exec(
        AIVIS,
        "webhooks",
        "listen",
        "--forward-to",
        forward_to,
        env=environ,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    seen = ""
    while "Press Ctrl-C" not in seen:
        line = await asyncio.wait_for(process.stderr.readline(), 30)
        assert line, f"listen ended: {seen}"
        seen += line.decode()
    secret = seen.split("The signing secret is ", 1)[1].split(".", 1)[0]
    return process, secret


async def interrupted(process: asyncio.subprocess.Process) -> tuple[bytes, bytes]:
    """Ctrl-C to a running `listen`, and what it printed; one that does not end within 30 s fails
    the test with its signal state and where each of its threads is."""
    process.send_signal(signal.SIGINT)
    try:
        return await asyncio.wait_for(process.communicate(), 30)
    except TimeoutError:
        status = Path(f"/proc/{process.pid}/status").read_text()
        signals = "\n".join(line for line in status.splitlines() if line.startswith("Sig"))
        spy = await asyncio.create_subprocess_exec(
            Path(AIVIS).with_name("py-spy"),
            "dump",
            "--pid",
            str(process.pid),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        stacks, _ = await spy.communicate()
        process.kill()
        await process.wait()
        raise AssertionError(f"listen did not end on Ctrl-C:\n{signals}\n{stacks.decode()}") from None


async def endpoints(tenant: Tenant) -> list[dict[str, Any]]:
    status, answer = await tenant.call("GET", "/api/v1/webhook-endpoints")
    assert status == 200
    listed: list[dict[str, Any]] = answer["data"]["endpoints"]
    return listed


async def test_listen_forwards_triggered_events_and_removes_its_endpoint(
    tenant: Tenant, tmp_path: Path, receivers: list[Receiver]
):
    local = await start_receiver(receivers, status=201, answer=b"thanks")
    code, _, err = await aivis(tenant, tmp_path, "webhooks", "trigger", "app.created")
    assert code == 5 and "webhooks listen" in err
    listen, secret = await start_listen(tenant, tmp_path, local.url)
    try:
        [endpoint] = await endpoints(tenant)
        assert endpoint["url"].startswith("http://127.0.0.1:") and "aivis webhooks listen" in endpoint["description"]
        assert secret.startswith("whsec_")
        delivery = await ok_json(tenant, tmp_path, "webhooks", "trigger", "persona.updated")
        assert delivery["eventType"] == "persona.updated"
        await local.deliveries(1)
        payload = local.verified(secret)  # signed as the API sent it; data of the declared shape
        assert payload["type"] == "persona.updated"
        code, _, err = await aivis(tenant, tmp_path, "webhooks", "trigger", "app.exploded")
        assert code == 5 and "type" in err
        path = f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries"

        async def recorded() -> bool:
            status, answer = await tenant.call("GET", path)
            return status == 200 and answer["data"]["deliveries"][0]["status"] == "succeeded"

        await eventually(recorded, 20)
        _, answer = await tenant.call("GET", path)
        [attempt] = answer["data"]["deliveries"][0]["attempts"]
        assert attempt["statusCode"] == 201 and attempt["response"] == "thanks"  # the local answer
    finally:
        out, err = await interrupted(listen)
    assert listen.returncode == 0, err
    [line] = out.decode().splitlines()
    assert f"persona.updated  {payload['id']}  [201] POST {local.url}" in line
    assert f"deleted the endpoint {endpoint['id']}" in err.decode()
    assert await endpoints(tenant) == []


async def test_listen_reuses_the_endpoint_an_earlier_one_left(
    tenant: Tenant, tmp_path: Path, receivers: list[Receiver]
):
    local = await start_receiver(receivers)
    listen, _ = await start_listen(tenant, tmp_path, local.url)
    listen.kill()  # no chance to clean up
    await listen.wait()
    [left] = await endpoints(tenant)
    listen, secret = await start_listen(tenant, tmp_path, local.url)
    try:
        [reused] = await endpoints(tenant)
        assert reused["id"] == left["id"] and reused["url"] != left["url"]
        delivery = await ok_json(tenant, tmp_path, "webhooks", "trigger", "ping")
        assert delivery["eventType"] == "ping"
        await local.deliveries(1)
        assert local.verified(secret)["data"] == {"endpointId": left["id"]}
    finally:
        _, err = await interrupted(listen)
    assert listen.returncode == 0, err
    assert await endpoints(tenant) == []

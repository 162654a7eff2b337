"""`aivis login` polls no faster than the server asks: the interval first, 5 s more after each
slow_down. The authorization server here is a real aiohttp server that records each poll."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

AIVIS = str(Path(sys.executable).parent / "aivis")
ANSWERS = ["slow_down", "authorization_pending"]


@pytest.mark.slow  # it waits out the real intervals, 13 s
async def test_login_waits_the_interval_and_slows_down_when_told(tmp_path):
    polls: list[float] = []

    async def device_code(request: web.Request) -> web.Response:
        form = await request.post()
        assert form["client_id"] == "aivis-cli"
        return web.json_response(
            {
                "device_code": "dc",
                "user_code": "BCDF-GHJK",
                "interval": 1,
                "expires_in": 60,
                "verification_uri": "http://x/device",
                "verification_uri_complete": "http://x/device?user_code=BCDF-GHJK",
            }
        )

    async def token(request: web.Request) -> web.Response:
        polls.append(time.monotonic())
        form = await request.post()
        assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code" and form["device_code"] == "dc"
        if len(polls) <= len(ANSWERS):
            return web.json_response({"error": ANSWERS[len(polls) - 1], "error_description": "wait"}, status=400)
        return web.json_response(
            {
                "access_token": "at",
                "token_type": "Bearer",
                "expires_in": 3600,
                "refresh_token": "avr_rt",
                "scope": "content:read",
                "user": {"id": "u", "email": "dev@example.com", "name": ""},
                "organization": {"id": "o", "slug": "acme", "name": "Acme"},
            }
        )

    app = web.Application()
    app.router.add_post("/api/v1/oauth/device/code", device_code)
    app.router.add_post("/api/v1/oauth/token", token)
    async with TestServer(app) as server:
        environ = {**os.environ, "AIVIS_CONFIG_DIR": str(tmp_path)}
        environ.pop("AIVIS_API_KEY", None)
        started = time.monotonic()
        process = await asyncio.create_subprocess_exec(
            AIVIS,
            "login",
            "--base-url",
            str(server.make_url("")).rstrip("/"),
            env=environ,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr
    assert stdout.decode().splitlines()[:2] == ["To sign in, open http://x/device", "and enter the code BCDF-GHJK"]
    assert "Signed in as dev@example.com to Acme (acme)." in stdout.decode()
    assert len(polls) == 3
    gaps = [polls[0] - started, polls[1] - polls[0], polls[2] - polls[1]]
    assert gaps[0] >= 1  # the interval
    assert gaps[1] >= 6  # 1 + 5 after slow_down
    assert gaps[2] >= 6  # and it stays slower

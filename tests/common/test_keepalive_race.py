"""A write sent on a kept-alive connection just as the part closes it for being idle.

A part closes a connection idle for PART_KEEPALIVE_SECONDS; were the caller to keep it longer, a
request sent at that moment would cross the close and fail (a 502 on a write, which is never
sent twice). The test makes that moment certain: the event loop is held past the part's
deadline, so the part's close and the caller's send run in the same turn, the close first."""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from libs.common.http_client import PART_KEEPALIVE_SECONDS, client_session


async def test_a_write_after_an_idle_pause_is_never_sent_on_a_connection_the_part_is_closing():
    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_post("/write", answer)
    runner = web.AppRunner(app, keepalive_timeout=PART_KEEPALIVE_SECONDS)  # as gunicorn serves a part
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    loop = asyncio.get_running_loop()
    try:
        async with client_session() as session:
            async with session.post(f"http://127.0.0.1:{port}/write", data=b"{}") as first:
                assert first.status == 200
                await first.read()
            answered = loop.time()  # the part's idle deadline is at most this plus its keep-alive
            deadline = answered + PART_KEEPALIVE_SECONDS
            loop.call_at(deadline - 0.1, time.sleep, 0.4)  # the loop is held across the deadline
            await asyncio.sleep(deadline + 0.05 - loop.time())
            async with session.post(f"http://127.0.0.1:{port}/write", data=b"{}") as second:
                assert second.status == 200
    finally:
        await runner.cleanup()

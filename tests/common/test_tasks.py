"""Periodic tasks stop when their context exits, whatever their step does with the cancellation."""

from __future__ import annotations

import asyncio
import time

from libs.common.tasks import periodic


async def run_until_stopped(step) -> float:
    """Seconds from leaving the context to the task having stopped."""
    async with periodic(0.01, step, "test"):
        await asyncio.sleep(0.05)
        leaving = time.monotonic()
    return time.monotonic() - leaving


async def test_a_periodic_task_stops_when_its_context_exits():
    rounds = 0

    async def step() -> None:
        nonlocal rounds
        rounds += 1

    assert await asyncio.wait_for(run_until_stopped(step), 2) < 1
    assert rounds >= 1


async def test_a_step_that_swallows_the_cancellation_does_not_keep_the_task_alive():
    swallowed = False

    async def step() -> None:
        nonlocal swallowed
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            if swallowed:
                raise
            swallowed = True  # once, as a client library may, turning it into an error of its own

    assert await asyncio.wait_for(run_until_stopped(step), 2) < 1

"""Periodic background work: rounds repeat, and stopping lets a round finish but never hangs."""

from __future__ import annotations

import asyncio

from libs.common.tasks import interruptible, periodic


async def test_rounds_repeat_and_a_failed_round_does_not_end_the_loop():
    rounds = []

    async def step() -> None:
        rounds.append(len(rounds))
        if len(rounds) == 1:
            raise RuntimeError("first round fails")

    async with periodic(0.01, step, "test"), asyncio.timeout(10):
        while len(rounds) < 3:
            await asyncio.sleep(0.01)
    assert rounds[:3] == [0, 1, 2]


async def test_the_round_in_progress_finishes_before_the_context_exits():
    finished = []

    async def step() -> None:
        await asyncio.sleep(0.05)
        finished.append(True)

    async with periodic(10, step, "test"):
        await asyncio.sleep(0.01)
    assert finished == [True]


async def test_a_round_longer_than_the_grace_period_is_cancelled():
    async def step() -> None:
        await asyncio.sleep(60)

    async with asyncio.timeout(2):
        async with periodic(10, step, "test", grace=0.05):
            await asyncio.sleep(0.01)


async def test_a_step_that_swallows_a_cancellation_still_stops():
    async def step() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:  # as a step catching the TimeoutError that replaced one would
            await asyncio.sleep(60)

    async with asyncio.timeout(2):
        async with periodic(10, step, "test", grace=0.05):
            await asyncio.sleep(0.01)


async def test_a_wait_marked_interruptible_is_cut_short_by_a_stop():
    waiting = asyncio.Event()
    cut_short = []

    async def step() -> None:
        with interruptible():  # as a stream read blocked for new entries
            waiting.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cut_short.append(True)
                raise

    loop = asyncio.get_running_loop()
    async with periodic(10, step, "test", grace=30):
        await waiting.wait()
        stopping_at = loop.time()
    assert cut_short == [True]
    assert loop.time() - stopping_at < 5  # not the grace period, nor the wait


async def test_work_outside_an_interruptible_wait_still_finishes():
    finished = []

    async def step() -> None:
        with interruptible():
            await asyncio.sleep(0)
        await asyncio.sleep(0.05)  # applying what was read: never cut short
        finished.append(True)

    async with periodic(10, step, "test"):
        await asyncio.sleep(0.01)
    assert finished == [True]

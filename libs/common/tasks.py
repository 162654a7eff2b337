"""Background work that runs for the life of an app, started and stopped by a cleanup context."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

log = logging.getLogger(__name__)


async def _every(interval: float, step: Callable[[], Awaitable[object]], name: str) -> None:
    task = asyncio.current_task()
    while True:
        try:
            await step()
        except Exception:  # one failed round must not end the loop; the next round retries
            log.exception("periodic task %s failed", name)
        if task is not None and task.cancelling():
            # The cancellation arrived inside the step and a library there swallowed it (redis-py
            # can turn it into its own connection error): stop anyway, or stopping waits forever.
            raise asyncio.CancelledError
        await asyncio.sleep(interval)


@asynccontextmanager
async def periodic(interval: float, step: Callable[[], Awaitable[object]], name: str) -> AsyncIterator[None]:
    """Run `step` every `interval` seconds until the context exits, then cancel it and wait."""
    task = asyncio.create_task(_every(interval, step, name), name=name)
    try:
        yield
    finally:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass

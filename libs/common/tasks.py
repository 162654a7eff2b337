"""Background work that runs for the life of an app, started and stopped by a cleanup context."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager

from libs.common.db import OUTAGE, is_database_unavailable

log = logging.getLogger(__name__)

GRACE_SECONDS = 5.0
# Tasks whose current wait loses nothing when cut short (a blocking stream read): a stop cancels
# them at once instead of waiting for the wait to time out.
_idle_waits: weakref.WeakSet[asyncio.Task[object]] = weakref.WeakSet()


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Mark the current task's wait as one a stop may cancel: nothing is applied or half-written
    inside it (what a cancelled read was given stays pending and is read again)."""
    task = asyncio.current_task()
    if task is None:
        yield
        return
    _idle_waits.add(task)
    try:
        yield
    finally:
        _idle_waits.discard(task)


def _interrupt_idle(tasks: Iterable[asyncio.Task[object]]) -> None:
    for task in tasks:
        if task in _idle_waits:
            task.cancel()


async def _every(interval: float, step: Callable[[], Awaitable[object]], name: str, stopping: asyncio.Event) -> None:
    while not stopping.is_set():
        try:
            await step()
        except Exception as exc:  # one failed round must not end the loop; the next round retries
            if is_database_unavailable(exc):
                OUTAGE.failed(exc)  # one line for the whole outage, not one a round
            else:
                log.exception("periodic task %s failed", name)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), interval)


@asynccontextmanager
async def periodic(
    interval: float, step: Callable[[], Awaitable[object]], name: str, grace: float = GRACE_SECONDS
) -> AsyncIterator[None]:
    """Run `step` every `interval` seconds until the context exits.

    On exit the round in progress may finish (for up to `grace` seconds), so a step is not cut
    off halfway through a transaction; past that it is cancelled. Cancellation is repeated
    until the task ends: in Python 3.11 a cancellation that coincides with a timeout firing
    inside the step (asyncio.timeout, as database and Redis clients use) comes out as a
    TimeoutError, which a step may catch, and one cancellation would then be lost.
    """
    stopping = asyncio.Event()
    task = asyncio.create_task(_every(interval, step, name, stopping), name=name)
    try:
        yield
    finally:
        stopping.set()
        _interrupt_idle((task,))
        await asyncio.wait({task}, timeout=grace)
        while not task.done():
            log.warning("periodic task %s outlived its grace period; cancelling it", name)
            task.cancel()
            await asyncio.wait({task}, timeout=0.1)


@asynccontextmanager
async def periodic_group(
    steps: dict[str, tuple[float, Callable[[], Awaitable[object]]]], grace: float = GRACE_SECONDS
) -> AsyncIterator[None]:
    """`periodic` for several steps ({name: (interval, step)}), stopped together: a step that
    blocks (a stream read) delays the group's exit once, not once per step."""
    stopping = asyncio.Event()
    tasks = {
        asyncio.create_task(_every(interval, step, name, stopping), name=name)
        for name, (interval, step) in steps.items()
    }
    try:
        yield
    finally:
        stopping.set()
        _interrupt_idle(tasks)
        await asyncio.wait(tasks, timeout=grace)
        while pending := {task for task in tasks if not task.done()}:
            names = sorted(task.get_name() for task in pending)
            log.warning("periodic tasks %s outlived their grace period; cancelling them", names)
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=0.1)

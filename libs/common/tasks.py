"""Background work that runs for the life of an app, started and stopped by a cleanup context.

A round that fails is followed by the next one later and later while failures go on (BACKOFF_*:
doubling, with jitter, capped), so a loop whose store is away (PostgreSQL, Redis) waits for it
instead of spinning; the first round that succeeds brings the loop back to its own pace. A store
being away is logged once when it starts and once when it ends, by the store's `Outage`, and so
is another part the loop calls answering 502, 503 or 504 (the loop's own `Outage`); any other
failure is logged with its traceback.

Tasks started for one piece of work (`watch`) never die silently either: their failure is
retrieved and logged the same way when they end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from typing import Any

from libs.common.db import OUTAGE, is_database_unavailable
from libs.common.errors import ApiError
from libs.common.outage import Outage
from libs.common.redis_client import is_redis_unavailable

log = logging.getLogger(__name__)

GRACE_SECONDS = 5.0
# The wait after the first failed round, doubling with each further one up to the cap; each wait
# is drawn between half and all of that, so the workers of every replica do not retry in step.
BACKOFF_FIRST_SECONDS = 0.1
BACKOFF_MAX_SECONDS = 5.0
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


def backoff_seconds(failures: int, interval: float = 0.0) -> float:
    """How long to wait after `failures` rounds in a row failed (never less than `interval`)."""
    if failures <= 0:
        return interval
    ceiling = min(BACKOFF_FIRST_SECONDS * 2 ** (failures - 1), BACKOFF_MAX_SECONDS)
    return max(interval, random.uniform(ceiling / 2, ceiling))  # noqa: S311 (jitter, not a secret)


def report_failure(exc: BaseException, what: str) -> None:
    """Log a failure of background work: a store away is its outage's to count, anything else an error."""
    if is_database_unavailable(exc):
        OUTAGE.failed(exc)  # one line for the whole outage, not one a round
    elif not is_redis_unavailable(exc):  # counted by the Redis connections themselves
        log.error("%s failed", what, exc_info=exc)


def is_part_unavailable(exc: BaseException) -> bool:
    """Whether `exc` is another part's call answered 502, 503 or 504: that part (or its store) is away."""
    return isinstance(exc, ApiError) and exc.status in (502, 503, 504)


async def _every(interval: float, step: Callable[[], Awaitable[object]], name: str, stopping: asyncio.Event) -> None:
    failures = 0
    # A part the step calls being away is this loop's outage to log, once at its start and end.
    called = Outage(f"a part periodic task {name} calls", log)
    while not stopping.is_set():
        try:
            await step()
        except Exception as exc:  # one failed round must not end the loop; the next round retries
            failures += 1
            if is_part_unavailable(exc):
                called.failed(exc)
            else:
                report_failure(exc, f"periodic task {name}")
        else:
            failures = 0
            called.answered()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), backoff_seconds(failures, interval))


def watch(task: asyncio.Task[Any], what: str) -> asyncio.Task[Any]:
    """Have `task`'s failure, if it fails, retrieved and logged when it ends (`report_failure`)."""

    def retrieve(done: asyncio.Task[Any]) -> None:
        if not done.cancelled() and (exc := done.exception()) is not None:
            report_failure(exc, what)

    task.add_done_callback(retrieve)
    return task


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
    async with periodic_group({name: (interval, step)}, grace):
        yield


@asynccontextmanager
async def periodic_group(
    steps: dict[str, tuple[float, Callable[[], Awaitable[object]]]], grace: float = GRACE_SECONDS
) -> AsyncIterator[None]:
    """`periodic` for several steps ({name: (interval, step)}), stopped together: a step that
    blocks (a stream read) delays the group's exit once, not once per step."""
    stopping = asyncio.Event()
    tasks = {
        watch(asyncio.create_task(_every(interval, step, name, stopping), name=name), f"periodic task {name}")
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

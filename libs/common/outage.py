"""Something a process depends on stopping answering, logged as two lines, not one per failure."""

from __future__ import annotations

import logging
import time


class Outage:
    """One line when `what` stops answering, one when it answers again with how many operations
    failed meanwhile; the failures between are counted, not logged, so the line on-call needs is
    not buried (every failed request still has its access-log line and its status)."""

    def __init__(self, what: str, log: logging.Logger) -> None:
        self._what = what
        self._log = log
        self._since: float | None = None
        self._failures = 0

    @property
    def down(self) -> bool:
        """Whether its last operation failed (and none has answered since)."""
        return self._since is not None

    def failed(self, exc: BaseException) -> None:
        self._failures += 1
        if self._since is None:
            self._since = time.monotonic()
            self._log.warning("%s unavailable (%r); failures are counted until it answers again", self._what, exc)

    def answered(self) -> None:
        if self._since is not None:
            self._log.warning(
                "%s available again after %.1fs; %d operations failed meanwhile",
                self._what,
                time.monotonic() - self._since,
                self._failures,
            )
            self._since, self._failures = None, 0

"""JSON logs on stdout, one object per line, each carrying the service and request id.

`time` is ISO 8601 in UTC with its zone (2026-01-02T03:04:05.678+00:00), gunicorn's own lines
included (deploy/gunicorn-logging.json uses the same formatter). What Python would otherwise
print on stderr as text goes through the same handler: warnings (a library's ResourceWarning),
exceptions raised in finalisers, and an exception nothing caught.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from datetime import UTC, datetime
from types import TracebackType

from pythonjsonlogger.orjson import OrjsonFormatter

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
# The route being served (its plain name), for the metrics of the calls made while serving it.
route_var: contextvars.ContextVar[str] = contextvars.ContextVar("route", default="background")

access_logger = logging.getLogger("aivis.access")


class IsoJsonFormatter(OrjsonFormatter):
    """JSON lines whose `time` is an ISO 8601 instant with its zone, encoded by orjson (half the
    cost of the standard library's encoder: every request writes one)."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


class _ContextFilter(logging.Filter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def filter(self, record: logging.LogRecord) -> bool:
        record.service = self.service
        record.request_id = request_id_var.get()
        return True


def configure_logging(service: str, level: str) -> None:
    """Route every logger (ours, aiohttp's, gunicorn's) to JSON lines on stdout."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(
        IsoJsonFormatter(
            "{asctime}{levelname}{name}{message}{service}{request_id}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    )
    handler.addFilter(_ContextFilter(service))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # aiohttp's own access log is replaced by the observe middleware's JSON line.
    logging.getLogger("aiohttp.access").disabled = True
    logging.captureWarnings(True)  # as WARNING lines of the logger "py.warnings"
    sys.excepthook = _log_uncaught
    sys.unraisablehook = _log_unraisable


_python_log = logging.getLogger("python")


def _log_uncaught(kind: type[BaseException], exc: BaseException, traceback: TracebackType | None) -> None:
    _python_log.critical("uncaught %r", exc, exc_info=(kind, exc, traceback))


def _log_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    exc = unraisable.exc_value
    where = unraisable.err_msg or "Exception ignored in"
    _python_log.error(
        "%s: %r: %r",
        where,
        unraisable.object,
        exc,
        exc_info=(unraisable.exc_type, exc, unraisable.exc_traceback) if exc is not None else None,
    )

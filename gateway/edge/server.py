"""How the gateway is served: aiohttp's server, with its own error answers made envelopes.

Errors raised before any route runs (a request line or header the HTTP parser refuses, a
handler that timed out) are answered by aiohttp's protocol itself, as plain text quoting the
parser's message, which holds the offending bytes (an API key in an oversized header, say).
Here they are error envelopes that never quote the request, and the log names only the kind of
error. gunicorn takes the runner `gateway.app.app_factory` returns as it is.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from gateway.edge.envelope import error_response
from libs.common import errors
from libs.common.http_client import PART_KEEPALIVE_SECONDS

log = logging.getLogger(__name__)

# Every part's keep-alive, which also bounds how long a request's headers may take.
KEEPALIVE_SECONDS = PART_KEEPALIVE_SECONDS
# In-flight requests may finish for this long on shutdown: inside gunicorn's graceful timeout.
SHUTDOWN_SECONDS = 9.0

# Messages of the statuses the protocol answers; never the parser's own, which quote the request.
PROTOCOL_MESSAGES = {400: "malformed HTTP request", 504: "the request took too long"}


class EnvelopeRequestHandler(RequestHandler):
    def handle_error(
        self, request: BaseRequest, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        """An envelope for an error the protocol answers itself; the connection is closed after it."""
        log.warning("refused request from %s: %s (%d)", request.remote, type(exc).__name__ if exc else "-", status)
        if request.writer.output_size > 0:
            raise ConnectionError("the response has started; no error answer can follow")
        response = error_response(errors.error_for_status(status)(PROTOCOL_MESSAGES.get(status)))
        response.set_status(status)
        response.force_close()
        return response


class EnvelopeServer(web.Server):
    def __call__(self) -> RequestHandler:
        return EnvelopeRequestHandler(self, loop=self._loop, **self._kwargs)


class GatewayRunner(web.AppRunner):
    """An AppRunner whose connections answer protocol errors as envelopes."""

    def __init__(self, app: web.Application, **kwargs: Any) -> None:
        kwargs.setdefault("keepalive_timeout", KEEPALIVE_SECONDS)
        kwargs.setdefault("shutdown_timeout", SHUTDOWN_SECONDS)
        kwargs.setdefault("access_log", None)  # the observe middleware writes the access log
        super().__init__(app, **kwargs)

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        return EnvelopeServer(
            server.request_handler,
            request_factory=server.request_factory,
            handler_cancellation=server.handler_cancellation,
            loop=server._loop,
            **server._kwargs,
        )

"""OAuth's own wire format: parameters in, `{error, error_description}` out (RFC 6749 §5.2).

These endpoints answer in OAuth's shape rather than the API envelope, because OAuth client
libraries read that shape. Parameters come form-encoded, as the RFCs send them, or as a JSON
object of strings; a parameter given twice is refused (RFC 6749 §3.1).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web

from libs.common.encoding import json_response, loads
from libs.common.schemas import is_json_content_type

FORM = "application/x-www-form-urlencoded"
# Token answers carry credentials: no cache may keep them (RFC 6749 §5.1).
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


class OAuthError(Exception):
    """An error of an OAuth endpoint: its RFC code, a sentence for people, its HTTP status."""

    def __init__(
        self, error: str, description: str, status: int = 400, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status
        self.headers = dict(headers or {})

    def response(self) -> web.Response:
        headers = {**NO_STORE, **self.headers}
        if self.status == 401:
            headers["WWW-Authenticate"] = 'Basic realm="aivis"'
        body = {"error": self.error, "error_description": self.description}
        return json_response(body, status=self.status, headers=headers)


def invalid_request(description: str) -> OAuthError:
    return OAuthError("invalid_request", description)


def invalid_grant(description: str) -> OAuthError:
    return OAuthError("invalid_grant", description)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def oauth_endpoint(handler: Handler) -> Handler:
    """Renders an OAuthError in OAuth's shape; an oversized body is an invalid request too."""

    async def wrapped(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except OAuthError as error:
            return error.response()
        except web.HTTPRequestEntityTooLarge:
            return OAuthError("invalid_request", "the request body is too large", status=413).response()

    wrapped.__name__, wrapped.__doc__ = handler.__name__, handler.__doc__
    return wrapped


async def read_parameters(request: web.Request) -> dict[str, str]:
    """The request's parameters: a form, or a JSON object whose values are strings."""
    if request.content_type == FORM:
        form = await request.post()
        parameters: dict[str, str] = {}
        for key in form:
            values = form.getall(key)
            if len(values) > 1:
                raise invalid_request(f"parameter {key!r} is given more than once")
            if not isinstance(values[0], str):
                raise invalid_request(f"parameter {key!r} must be text")
            parameters[key] = values[0]
        return parameters
    if is_json_content_type(request.content_type):
        try:
            data: Any = loads(await request.read())
        except ValueError:
            raise invalid_request("the body is not valid JSON") from None
        if not isinstance(data, dict) or not all(isinstance(value, str) for value in data.values()):
            raise invalid_request("the JSON body must be an object of string values")
        return data
    raise invalid_request(f"send parameters as {FORM} or application/json")


def required(parameters: Mapping[str, str], name: str) -> str:
    value = parameters.get(name, "")
    if not value:
        raise invalid_request(f"parameter {name!r} is required")
    return value

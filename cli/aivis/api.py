"""Calls to the API with the right credential, and the OAuth calls behind `login` and `logout`.

`AIVIS_API_KEY`, when set, is sent as `x-api-key` and wins over any stored sign-in, so servers
need no login. Otherwise the profile's access token is sent, refreshed a minute before it
expires or when the API refuses it, under the credentials lock (config.locked).

Every path the client calls is an `Endpoint` declared at the top level of a module of this
package, in the route table's own spelling; a test holds each one to the gateway's table.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx2 as httpx

from aivis import config
from aivis.errors import EXIT_AUTH, EXIT_SERVER, ApiError, CliError, not_signed_in

CLIENT_ID = "aivis-cli"
REFRESH_MARGIN_SECONDS = 60
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
IDEMPOTENCY_KEY = "Idempotency-Key"
IN_PROGRESS = "IDEMPOTENCY_IN_PROGRESS"
ATTEMPTS = 3
RETRY_STATUSES = frozenset({502, 503, 504})
RETRY_DELAY_SECONDS = 0.25
MAX_RETRY_DELAY_SECONDS = 5.0


@dataclass(frozen=True)
class Endpoint:
    """A method and a path template (`/api/v1/apps/{appId}`) the client calls."""

    method: str
    path: str

    def url(self, **parameters: str) -> str:
        """The path with each parameter filled in, escaped as one segment."""
        return self.path.format(**{name: quote(value, safe="") for name, value in parameters.items()})


OAUTH_DEVICE_CODE = Endpoint("POST", "/api/v1/oauth/device/code")
OAUTH_TOKEN = Endpoint("POST", "/api/v1/oauth/token")
OAUTH_REVOKE = Endpoint("POST", "/api/v1/oauth/revoke")
READY = Endpoint("GET", "/readyz")


def tokens_profile(base_url: str, body: dict[str, Any]) -> dict[str, Any]:
    """What a profile keeps of a token response."""
    return {
        "base_url": base_url,
        "client_id": CLIENT_ID,
        "access_token": body["access_token"],
        "refresh_token": body["refresh_token"],
        "expires_at": int(time.time()) + int(body["expires_in"]),
        "scope": body.get("scope", ""),
        "user": body.get("user"),
        "organization": body.get("organization"),
    }


@dataclass
class Api:
    profile: str
    base_url: str
    client: httpx.Client

    @property
    def api_key(self) -> str | None:
        return os.environ.get("AIVIS_API_KEY") or None

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            return self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise CliError(f"cannot reach {self.base_url}: {exc}", EXIT_SERVER) from None

    # The API.

    def call(self, endpoint: Endpoint, *, query: dict[str, Any] | None = None, body: Any = None, **path: str) -> Any:
        """The `data` of a successful answer; an error envelope raises ApiError.

        A write carries a fresh `Idempotency-Key`, the same on each of its retries, so a retry after a
        lost answer never writes twice. A call is sent again (ATTEMPTS in all) when it got no answer,
        a 502, 503 or 504, or a 409 saying the first request with its key still runs.
        """
        kwargs: dict[str, Any] = {
            "params": {key: _query_value(value) for key, value in (query or {}).items() if value is not None}
        }
        if body is not None:
            kwargs["json"] = body
        method, url = endpoint.method, endpoint.url(**path)
        headers = {IDEMPOTENCY_KEY: str(uuid.uuid4())} if method in WRITES else {}
        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = self._authorized(method, url, headers, kwargs)
            except httpx.HTTPError as exc:
                if attempt == ATTEMPTS or not isinstance(exc, httpx.TransportError):
                    raise CliError(f"cannot reach {self.base_url}: {exc}", EXIT_SERVER) from None
                time.sleep(RETRY_DELAY_SECONDS * attempt)
                continue
            if attempt == ATTEMPTS or not _worth_retrying(response):
                return _data_of(response)
            time.sleep(_retry_delay(response, attempt))
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _authorized(self, method: str, url: str, headers: dict[str, str], kwargs: dict[str, Any]) -> httpx.Response:
        """One request with the credential (an expired token refreshed and the request sent again)."""
        if self.api_key is not None:
            return self.client.request(method, url, headers={**headers, "x-api-key": self.api_key}, **kwargs)
        token = self.access_token()
        response = self.client.request(method, url, headers={**headers, "Authorization": f"Bearer {token}"}, **kwargs)
        if response.status_code == 401:
            token = self._refresh(token)
            response = self.client.request(
                method, url, headers={**headers, "Authorization": f"Bearer {token}"}, **kwargs
            )
        return response

    # The profile's tokens.

    def signed_in(self) -> dict[str, Any]:
        profile = config.load_profile(self.profile)
        if profile is None or not profile.get("refresh_token"):
            raise not_signed_in(self.profile)
        return profile

    def access_token(self) -> str:
        profile = self.signed_in()
        if profile["expires_at"] - REFRESH_MARGIN_SECONDS > time.time():
            return str(profile["access_token"])
        return self._refresh(profile["access_token"])

    def _refresh(self, stale_token: str) -> str:
        with config.locked():
            profile = self.signed_in()
            fresh = profile["expires_at"] - REFRESH_MARGIN_SECONDS > time.time()
            if profile["access_token"] != stale_token and fresh:
                return str(profile["access_token"])  # another command refreshed meanwhile
            status, body = self.oauth(
                OAUTH_TOKEN, grant_type="refresh_token", client_id=CLIENT_ID, refresh_token=profile["refresh_token"]
            )
            if status != 200:
                if body.get("error") == "invalid_grant":
                    config.delete_profile(self.profile)
                    raise CliError(f"signed out: {body.get('error_description')}; run `aivis login`", EXIT_AUTH)
                raise oauth_error(status, body)
            config.save_profile(self.profile, tokens_profile(profile["base_url"], body))
            return str(body["access_token"])

    # OAuth, which answers in its own shape.

    def oauth(self, endpoint: Endpoint, **form: str) -> tuple[int, dict[str, Any]]:
        response = self._send(endpoint.method, endpoint.path, data=form)
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        return response.status_code, body

    def status_of(self, endpoint: Endpoint) -> int:
        """The status a path answers with, whatever its body."""
        return self._send(endpoint.method, endpoint.path).status_code


def oauth_error(status: int, body: dict[str, Any]) -> CliError:
    if status >= 500 or not body:
        return CliError(f"the server answered {status}", EXIT_SERVER)
    return CliError(f"{body.get('error')}: {body.get('error_description', '')}", EXIT_AUTH)


def _worth_retrying(response: httpx.Response) -> bool:
    if response.status_code in RETRY_STATUSES:
        return True
    if response.status_code != 409:
        return False
    try:
        return bool(response.json().get("code") == IN_PROGRESS)
    except (ValueError, AttributeError):
        return False


def _retry_delay(response: httpx.Response, attempt: int) -> float:
    """The server's `Retry-After` (at most MAX_RETRY_DELAY_SECONDS), or a delay growing with each attempt."""
    try:
        return min(float(response.headers["Retry-After"]), MAX_RETRY_DELAY_SECONDS)
    except (KeyError, ValueError):
        return RETRY_DELAY_SECONDS * attempt


def _query_value(value: Any) -> Any:
    return ("true" if value else "false") if isinstance(value, bool) else value


def _data_of(response: httpx.Response) -> Any:
    try:
        envelope = response.json()
    except ValueError:
        raise CliError(f"the server answered {response.status_code} without JSON", EXIT_SERVER) from None
    if isinstance(envelope, dict) and envelope.get("ok") is True:
        return envelope.get("data")
    if isinstance(envelope, dict) and "code" in envelope:
        raise ApiError(response.status_code, envelope["code"], envelope.get("message", ""), envelope.get("details"))
    raise CliError(f"the server answered {response.status_code} with an unexpected body", EXIT_SERVER)

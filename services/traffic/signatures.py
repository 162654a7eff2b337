"""Web Bot Auth: an agent's HTTP Message Signature (RFC 9421) checked against its key directory.

The signing agent names its directory's origin in `Signature-Agent`; the directory
(`/.well-known/http-message-signatures-directory`) is a JWK set of Ed25519 keys, each named by its
RFC 7638 thumbprint, which the signature's `keyid` gives. Only the origins the catalog lists for
an agent are ever fetched (an event's `signatureAgent` is the sender's word, so it never decides
where this service connects), and a directory is cached for an hour. Signatures are checked with
`http-message-signatures`, against the time the request was made (an event may be reported late).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from http_message_signatures import HTTPMessageVerifier, InvalidSignature, algorithms
from http_message_signatures.exceptions import HTTPMessageSignaturesException
from http_message_signatures.resolvers import MappingKeyResolver

from services.traffic.ttl_cache import MISSING, TtlCache

log = logging.getLogger(__name__)

DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"
TAG = "web-bot-auth"
DIRECTORY_TTL_SECONDS = 3600.0
DIRECTORY_FAILURE_TTL_SECONDS = 60.0
MAX_DIRECTORY_BYTES = 64 * 1024
# A signature's lifetime as Web Bot Auth agents set it is minutes; older ones are refused.
MAX_AGE = timedelta(hours=1)


def thumbprint(jwk: dict[str, Any]) -> str:
    """The RFC 7638 thumbprint of an OKP key: SHA-256 of its required members, base64url."""
    members = {"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"]}
    digest = hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _public_keys(directory: dict[str, Any]) -> dict[str, Ed25519PublicKey]:
    keys = {}
    for jwk in directory.get("keys", []):
        if jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519" and isinstance(jwk.get("x"), str):
            raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
            keys[thumbprint(jwk)] = Ed25519PublicKey.from_public_bytes(raw)
    return keys


def signature_agent_origin(value: str) -> str:
    """The origin a `Signature-Agent` field names: a structured-field string (quoted) or a bare URL."""
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return text.rstrip("/")


@dataclass
class _Request:
    """The signed request, as the library reads one."""

    method: str
    url: str
    headers: dict[str, str]


class _VerifierAt(HTTPMessageVerifier):
    """The library's verifier, judging `created` and `expires` at the time the request was made."""

    def __init__(self, at: datetime, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._at = at

    def validate_created_and_expires(self, sig_input: Any, max_age: timedelta | None = None) -> None:
        params = sig_input.params
        if "created" not in params or not isinstance(params["created"], int):
            raise InvalidSignature('Signature is missing a required "created" parameter')
        created = datetime.fromtimestamp(params["created"], self._at.tzinfo)
        if created > self._at + self.max_clock_skew:
            raise InvalidSignature("Signature was created after the request")
        expires = params.get("expires")
        if (
            isinstance(expires, int)
            and datetime.fromtimestamp(expires, self._at.tzinfo) < self._at - self.max_clock_skew
        ):
            raise InvalidSignature("Signature had expired when the request was made")
        if max_age is not None and created + max_age < self._at - self.max_clock_skew:
            raise InvalidSignature("Signature was too old when the request was made")


@dataclass
class SignatureChecker:
    session: aiohttp.ClientSession
    timeout_seconds: float
    _directories: TtlCache[str, dict[str, Ed25519PublicKey]] = field(
        default_factory=lambda: TtlCache(DIRECTORY_TTL_SECONDS, 1000)
    )
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    async def verify(
        self,
        origin: str,
        *,
        method: str,
        url: str,
        signature: str,
        signature_input: str,
        signature_agent: str,
        at: datetime,
    ) -> bool:
        """Whether the request carried a valid Web Bot Auth signature by a key of `origin`'s directory."""
        keys = await self._directory(origin)
        if not keys:
            return False
        headers = {"Signature": signature, "Signature-Input": signature_input, "Signature-Agent": signature_agent}
        verifier = _VerifierAt(
            at,
            signature_algorithm=algorithms.ED25519,
            key_resolver=MappingKeyResolver(public_keys=keys, private_keys={}),
        )
        try:
            verifier.verify(
                _Request(method, url, headers), max_age=MAX_AGE, expect_tag=TAG, require_components=("@authority",)
            )
        except (InvalidSignature, HTTPMessageSignaturesException, ValueError):
            return False
        return True

    async def _directory(self, origin: str) -> dict[str, Ed25519PublicKey]:
        found = self._directories.get(origin)
        if found is not MISSING:
            return found  # type: ignore[return-value]
        lock = self._locks.setdefault(origin, asyncio.Lock())
        async with lock:
            found = self._directories.get(origin)
            if found is not MISSING:
                return found  # type: ignore[return-value]
            try:
                keys = await self._fetch(origin)
                self._directories.put(origin, keys)
            except (aiohttp.ClientError, TimeoutError, ValueError, KeyError) as exc:
                log.warning("key directory of %s unreadable: %s", origin, exc)
                keys = {}
                self._directories.put(origin, keys, DIRECTORY_FAILURE_TTL_SECONDS)
            return keys

    async def _fetch(self, origin: str) -> dict[str, Ed25519PublicKey]:
        timeout = aiohttp.ClientTimeout(total=self.timeout_seconds)
        async with self.session.get(origin + DIRECTORY_PATH, timeout=timeout, allow_redirects=False) as response:
            response.raise_for_status()
            body = await response.content.read(MAX_DIRECTORY_BYTES + 1)
        if len(body) > MAX_DIRECTORY_BYTES:
            raise ValueError("the key directory is too large")
        return _public_keys(json.loads(body))

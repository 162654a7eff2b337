"""The signed internal token: how the gateway (or a service) tells a service who is calling.

An HS256 JWT signed with the shared INTERNAL_TOKEN_SECRET, valid for a minute. Services refuse
any request under /api/ or /internal/ without a valid one, so the network is not the only wall.

Signing and checking one costs about a tenth of a proxied request's CPU (docs/performance.md),
and one caller makes many requests a second: a `Minter` reuses a caller's token for a few
seconds, a `Verifier` remembers a checked token until it expires. The request id therefore
travels in the X-Request-Id header, not in the token.

While the secret is rotated, a second one (INTERNAL_TOKEN_OVERLAP_SECRET) is accepted as well
(docs/operations.md#rotating-the-internal-token-secret).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jwt

from libs.common.errors import NotFound, Unauthorized

HEADER = "X-Internal-Token"
ALGORITHM = "HS256"
ISSUER = "aivis-internal"
AUDIENCE = "aivis-services"
TTL_SECONDS = 60
# A reused token still has at least TTL_SECONDS - REUSE_SECONDS to live: longer than any upstream call.
REUSE_SECONDS = 5
CACHE_SIZE = 10_000

PRINCIPAL_KINDS = ("api_key", "user", "service")


@dataclass(frozen=True)
class Organization:
    id: str
    slug: str
    name: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "slug": self.slug, "name": self.name}


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    slug: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "slug": self.slug}


@dataclass(frozen=True)
class Caller:
    """The verified identity behind a request, as a service sees it.

    `organization` is None only for a service principal acting across organizations (the
    simulation runner recording runs, say). `product` is set when the gateway checked a
    productId of the request against the caller's organization. `request_id` is the id of the
    request being served (its X-Request-Id), which calls made on its behalf pass on.
    """

    principal_kind: str
    principal_id: str
    organization: Organization | None
    scopes: frozenset[str] = field(default_factory=frozenset)
    product: Product | None = None
    request_id: str | None = None

    @property
    def org(self) -> Organization:
        """The caller's organization; a request that needs one and has none is unauthorized."""
        if self.organization is None:
            raise Unauthorized("an organization is required")
        return self.organization

    def checked_product(self, product_id: str) -> Product:
        """The product the gateway checked for this request, which `product_id` must name; any
        other id is not the caller's to see."""
        if self.product is None or self.product.id != product_id.lower():
            raise NotFound("product not found")
        return self.product


def mint(secret: str, caller: Caller, now: float | None = None) -> str:
    issued = int(time.time() if now is None else now)
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "iat": issued,
        "exp": issued + TTL_SECONDS,
        "sub": caller.principal_id,
        "kind": caller.principal_kind,
        "scopes": sorted(caller.scopes),
    }
    if caller.organization is not None:
        claims["org"] = caller.organization.to_dict()
    if caller.product is not None:
        claims["product"] = caller.product.to_dict()
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def verify(secret: str, token: str, *also_accepted: str) -> Caller:
    """Decode and check a token signed with `secret` or, during a rotation, one of `also_accepted`;
    any defect is a 401. The caller's request id is not in it."""
    return _verify((secret, *also_accepted), token)[0]


def _verify(secrets: tuple[str, ...], token: str) -> tuple[Caller, int]:
    """The token's caller and expiry time."""
    claims: dict[str, Any] | None = None
    for candidate in secrets:
        try:
            claims = jwt.decode(
                token,
                candidate,
                algorithms=[ALGORITHM],
                audience=AUDIENCE,
                issuer=ISSUER,
                options={"require": ["exp", "iat", "sub", "iss", "aud"]},
            )
            break
        except jwt.InvalidSignatureError:
            continue  # perhaps signed with the other secret of a rotation
        except jwt.PyJWTError:
            raise Unauthorized("invalid internal token") from None
    if claims is None:
        raise Unauthorized("invalid internal token")
    kind = claims.get("kind")
    if kind not in PRINCIPAL_KINDS:
        raise Unauthorized("invalid internal token")
    org = claims.get("org")
    product = claims.get("product")
    try:
        caller = Caller(
            principal_kind=kind,
            principal_id=claims["sub"],
            organization=Organization(**org) if org else None,
            scopes=frozenset(claims.get("scopes", ())),
            product=Product(**product) if product else None,
        )
    except TypeError:
        raise Unauthorized("invalid internal token") from None
    return caller, claims["exp"]


class Minter:
    """Signs callers' tokens, reusing each caller's token for REUSE_SECONDS."""

    def __init__(self, secret: str, clock: Callable[[], float] = time.time) -> None:
        self._secret = secret
        self._clock = clock
        self._tokens: dict[tuple[Any, ...], tuple[str, float]] = {}

    def token(self, caller: Caller) -> str:
        key = (caller.principal_kind, caller.principal_id, caller.organization, caller.scopes, caller.product)
        now = self._clock()
        cached = self._tokens.get(key)
        if cached is not None and now - cached[1] < REUSE_SECONDS:
            return cached[0]
        if len(self._tokens) >= CACHE_SIZE:
            self._tokens.clear()
        token = mint(self._secret, caller, now)
        self._tokens[key] = (token, now)
        return token


class Verifier:
    """Checks tokens, remembering each valid one until it expires; a defective one is never remembered."""

    def __init__(self, secret: str, *also_accepted: str) -> None:
        self._secrets = (secret, *also_accepted)
        self._callers: dict[str, tuple[Caller, int]] = {}

    def caller(self, token: str) -> Caller:
        cached = self._callers.get(token)
        if cached is not None and time.time() < cached[1]:
            return cached[0]
        caller, expires = _verify(self._secrets, token)
        if len(self._callers) >= CACHE_SIZE:
            self._callers.clear()
        self._callers[token] = (caller, expires)
        return caller


def service_caller(service: str, organization: Organization | None = None, request_id: str | None = None) -> Caller:
    """The identity a service uses when it calls another service on its own behalf."""
    return Caller(
        principal_kind="service",
        principal_id=service,
        organization=organization,
        request_id=request_id,
    )

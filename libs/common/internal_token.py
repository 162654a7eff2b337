"""The signed internal token: how the gateway (or a service) tells a service who is calling.

An HS256 JWT signed with the shared INTERNAL_TOKEN_SECRET, valid for a minute. Services refuse
any request under /api/ or /internal/ without a valid one, so the network is not the only wall.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import jwt

from libs.common.errors import NotFound, Unauthorized

HEADER = "X-Internal-Token"
ALGORITHM = "HS256"
ISSUER = "aivis-internal"
AUDIENCE = "aivis-services"
TTL_SECONDS = 60

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
    productId of the request against the caller's organization.
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
    if caller.request_id is not None:
        claims["rid"] = caller.request_id
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def verify(secret: str, token: str) -> Caller:
    """Decode and check a token; any defect is a 401."""
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            audience=AUDIENCE,
            issuer=ISSUER,
            options={"require": ["exp", "iat", "sub", "iss", "aud"]},
        )
    except jwt.PyJWTError:
        raise Unauthorized("invalid internal token") from None
    kind = claims.get("kind")
    if kind not in PRINCIPAL_KINDS:
        raise Unauthorized("invalid internal token")
    org = claims.get("org")
    product = claims.get("product")
    try:
        return Caller(
            principal_kind=kind,
            principal_id=claims["sub"],
            organization=Organization(**org) if org else None,
            scopes=frozenset(claims.get("scopes", ())),
            product=Product(**product) if product else None,
            request_id=claims.get("rid"),
        )
    except TypeError:
        raise Unauthorized("invalid internal token") from None


def service_caller(service: str, organization: Organization | None = None, request_id: str | None = None) -> Caller:
    """The identity a service uses when it calls another service on its own behalf."""
    return Caller(
        principal_kind="service",
        principal_id=service,
        organization=organization,
        request_id=request_id,
    )

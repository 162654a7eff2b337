"""Bearer tokens: EdDSA-signed JWTs, with the public key published as a JWKS.

The algorithm is fixed here, never read from the token, so `alg: none` and HS256 tokens forged
with the public key as a secret are refused. `kid` is the key's RFC 7638 thumbprint.

Rotation: the private key signs; more public keys (JWT_VERIFY_KEYS) verify and are published in
the JWKS beside it, so tokens signed by the previous key keep working until it is removed, and a
key announced ahead of its use is already trusted by every replica when it starts signing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from collections.abc import Iterable
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from libs.common.errors import Unauthorized
from libs.common.settings import SettingsError

ALGORITHM = "EdDSA"
DEFAULT_TTL_SECONDS = 3600
_PEM_BEGIN = "-----BEGIN PUBLIC KEY-----"


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def invalid_token() -> Unauthorized:
    return Unauthorized("invalid bearer token")


def _jwk(public_key: Ed25519PublicKey) -> dict[str, str]:
    x = _b64url(public_key.public_bytes(Encoding.Raw, PublicFormat.Raw))
    canonical = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": x}, separators=(",", ":"), sort_keys=True)
    kid = _b64url(hashlib.sha256(canonical.encode()).digest())
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "alg": ALGORITHM, "use": "sig"}


def parse_public_keys(pems: str) -> list[Ed25519PublicKey]:
    """Ed25519 public keys in PEM, one after another (JWT_VERIFY_KEYS); empty text is none."""
    blocks = [_PEM_BEGIN + block for block in pems.split(_PEM_BEGIN)[1:]]
    if pems.strip() and not blocks:
        raise SettingsError("JWT_VERIFY_KEYS must hold PEM public keys")
    keys = []
    for block in blocks:
        try:
            key = load_pem_public_key(block.strip().encode())
        except ValueError:
            raise SettingsError("JWT_VERIFY_KEYS holds a key that is not a PEM public key") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SettingsError("JWT_VERIFY_KEYS must hold Ed25519 keys")
        keys.append(key)
    return keys


class TokenSigner:
    """Signs the gateway's bearer tokens with one Ed25519 key; verifies with it and `verify_keys`."""

    def __init__(self, private_key_pem: str, issuer: str, audience: str, verify_keys: str = "") -> None:
        try:
            key = load_pem_private_key(private_key_pem.encode(), password=None)
        except ValueError:
            raise SettingsError("JWT_PRIVATE_KEY is not a PEM private key") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise SettingsError("JWT_PRIVATE_KEY must be an Ed25519 key")
        self._private_key = key
        self._issuer = issuer
        self._audience = audience
        signing = _jwk(key.public_key())
        self.kid = signing["kid"]
        self._public_keys = {self.kid: key.public_key()}
        for public_key in parse_public_keys(verify_keys):
            self._public_keys.setdefault(_jwk(public_key)["kid"], public_key)
        # The signing key first, then the others that still verify.
        self.jwks = {"keys": [_jwk(public_key) for public_key in self._public_keys.values()]}

    def mint(
        self,
        user_id: str,
        organization_id: str,
        scopes: Iterable[str],
        ttl: int = DEFAULT_TTL_SECONDS,
        grant_id: str | None = None,
    ) -> str:
        """A token for the user in the organization; `grant_id` names the OAuth grant it was
        issued under (`gid`), so revoking the grant ends it too."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self._issuer,
            "aud": self._audience,
            "sub": user_id,
            "org": organization_id,
            "scope": " ".join(sorted(scopes)),
            "iat": now,
            "exp": now + ttl,
            "jti": uuid.uuid4().hex,
        }
        if grant_id is not None:
            claims["gid"] = grant_id
        return jwt.encode(claims, self._private_key, algorithm=ALGORITHM, headers={"kid": self.kid})

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a valid token; any defect (signature, kid, exp, iss, aud, alg) is a 401."""
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            public_key = self._public_keys.get(kid) if isinstance(kid, str) else None
            if public_key is None:
                raise invalid_token()
            claims: dict[str, Any] = jwt.decode(
                token,
                public_key,
                algorithms=[ALGORITHM],
                audience=self._audience,
                issuer=self._issuer,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError:
            raise invalid_token() from None
        if not isinstance(claims.get("org"), str) or not isinstance(claims.get("scope"), str):
            raise invalid_token()
        if not isinstance(claims.get("gid", ""), str):
            raise invalid_token()
        return claims

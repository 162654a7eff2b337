"""Bearer tokens: EdDSA-signed JWTs, with the public key published as a JWKS.

The algorithm is fixed here, never read from the token, so `alg: none` and HS256 tokens forged
with the public key as a secret are refused. `kid` is the key's RFC 7638 thumbprint.
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
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_private_key

from libs.common.errors import Unauthorized
from libs.common.settings import SettingsError

ALGORITHM = "EdDSA"
DEFAULT_TTL_SECONDS = 3600


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def invalid_token() -> Unauthorized:
    return Unauthorized("invalid bearer token")


class TokenSigner:
    """Signs and verifies the gateway's bearer tokens with one Ed25519 key."""

    def __init__(self, private_key_pem: str, issuer: str, audience: str) -> None:
        try:
            key = load_pem_private_key(private_key_pem.encode(), password=None)
        except ValueError:
            raise SettingsError("JWT_PRIVATE_KEY is not a PEM private key") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise SettingsError("JWT_PRIVATE_KEY must be an Ed25519 key")
        self._private_key = key
        self._public_key = key.public_key()
        self._issuer = issuer
        self._audience = audience
        x = _b64url(self._public_key.public_bytes(Encoding.Raw, PublicFormat.Raw))
        canonical = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": x}, separators=(",", ":"), sort_keys=True)
        self.kid = _b64url(hashlib.sha256(canonical.encode()).digest())
        self.jwks = {
            "keys": [{"kty": "OKP", "crv": "Ed25519", "x": x, "kid": self.kid, "alg": ALGORITHM, "use": "sig"}]
        }

    def mint(self, user_id: str, organization_id: str, scopes: Iterable[str], ttl: int = DEFAULT_TTL_SECONDS) -> str:
        now = int(time.time())
        claims = {
            "iss": self._issuer,
            "aud": self._audience,
            "sub": user_id,
            "org": organization_id,
            "scope": " ".join(sorted(scopes)),
            "iat": now,
            "exp": now + ttl,
            "jti": uuid.uuid4().hex,
        }
        return jwt.encode(claims, self._private_key, algorithm=ALGORITHM, headers={"kid": self.kid})

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a valid token; any defect (signature, kid, exp, iss, aud, alg) is a 401."""
        try:
            if jwt.get_unverified_header(token).get("kid") != self.kid:
                raise invalid_token()
            claims: dict[str, Any] = jwt.decode(
                token,
                self._public_key,
                algorithms=[ALGORITHM],
                audience=self._audience,
                issuer=self._issuer,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError:
            raise invalid_token() from None
        if not isinstance(claims.get("org"), str) or not isinstance(claims.get("scope"), str):
            raise invalid_token()
        return claims

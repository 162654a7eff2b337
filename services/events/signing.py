"""Webhook signatures per the Standard Webhooks specification (standardwebhooks.com).

A secret is `whsec_` and 32 random bytes in base64. A message is signed as
`base64(HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>"))` and sent as
`webhook-signature: v1,<signature>`; during a rotation's overlap a second `v1,` signature made
with the previous secret follows, space-separated, so a receiver holding either verifies.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(_key(secret), f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(secrets_in_use: list[str], message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three headers of a delivery, signed with every secret in use (the current one first)."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signature(secret, message_id, timestamp, body) for secret in secrets_in_use),
    }

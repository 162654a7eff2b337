"""The registered OAuth clients. Each is public (no secret): it runs on people's machines."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.identity.auth.scopes import ALL_SCOPES
from gateway.identity.oauth.protocol import OAuthError, required


@dataclass(frozen=True)
class Client:
    client_id: str
    name: str
    # The scopes asked for when a device-code request names none.
    default_scopes: frozenset[str]


# The first-party command-line client (`aivis`). It asks for everything; the approving user's
# role decides what is granted.
CLI = Client("aivis-cli", "aivis command line", ALL_SCOPES)
CLIENTS = {client.client_id: client for client in (CLI,)}


def client_of(parameters: dict[str, str]) -> Client:
    """The registered client the request names; an unknown one is refused (RFC 6749 §5.2)."""
    client_id = required(parameters, "client_id")
    client = CLIENTS.get(client_id)
    if client is None:
        raise OAuthError("invalid_client", f"unknown client {client_id!r}", status=401)
    return client

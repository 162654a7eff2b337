"""The edge provider: where a new domain is registered so that traffic for it reaches us.

The API exposes the provider's identifier of each domain as `providerId`. Providers are chosen
by the EDGE_PROVIDER setting; `local` (development, tests, single-host installs) makes no
network call and derives the id from the hostname, so the same hostname always gets the same id.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Protocol

LOCAL_NAMESPACE = uuid.UUID("0c8f3c52-6a51-4f7e-9d0e-2b7f4e1a9c33")


class EdgeProvider(Protocol):
    async def register(self, hostname: str) -> str:
        """Register `hostname` and return the provider's id for it."""
        ...


class LocalEdgeProvider:
    async def register(self, hostname: str) -> str:
        return f"local-{uuid.uuid5(LOCAL_NAMESPACE, hostname).hex}"


EDGE_PROVIDERS: dict[str, Callable[[], EdgeProvider]] = {"local": LocalEdgeProvider}

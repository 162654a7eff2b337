"""Refused credentials, bounded per client address, in the shared store.

Each refused credential spends a token of its address's bucket in Redis (the rate limits' token
bucket, gateway/edge/ratelimit.py, applied per event rather than synced later), so the limit is exact
across workers and replicas: with a burst of 30, the 31st refusal is the first 429. Only what
fails is throttled: a valid credential from the same address (a neighbour behind one NAT) is
resolved and served as usual, whatever others there sent. The address is `client_address`.
"""

from __future__ import annotations

from prometheus_client import Counter

from gateway.edge.ratelimit import RateLimiter
from libs.common.errors import RateLimited

FAILED = Counter("gateway_auth_failed_total", "Requests whose credential was refused (401).")
LIMITED = Counter(
    "gateway_auth_failed_limited_total",
    "Refused credentials answered 429 rather than 401, because their address sent too many.",
)


class FailedCredentials:
    def __init__(self, limiter: RateLimiter) -> None:
        self.limiter = limiter

    async def record(self, address: str) -> None:
        """Count a refused credential; 429 when `address` has none left to refuse."""
        FAILED.inc()
        decision = await self.limiter.take_shared(f"failed-credentials:{address}")
        if not decision.allowed:
            LIMITED.inc()
            raise RateLimited(
                "too many failed credentials from this address",
                details={"retryAfterSeconds": decision.retry_after_seconds},
                headers={"Retry-After": str(decision.retry_after_seconds)},
            )

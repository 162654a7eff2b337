"""Failed credentials, bounded per client address.

Every refused credential may have cost a database lookup (an API key not seen before, a
membership not cached), so an address that keeps sending bad ones is refused with 429 before
any lookup once it has spent its allowance. The allowance is a token bucket per address, shared
across replicas like the rate limits (gateway/ratelimit.py); a good credential spends none of it.
The address is the connection's peer: behind a proxy that hides clients' addresses, the proxy
must limit by client itself.
"""

from __future__ import annotations

from prometheus_client import Counter

from gateway.ratelimit import RateLimiter
from libs.common.errors import RateLimited

FAILED = Counter("gateway_auth_failed_total", "Requests whose credential was refused (401).")
LIMITED = Counter(
    "gateway_auth_failed_limited_total",
    "Requests refused with 429, before any lookup, because their address sent too many bad credentials.",
)


class FailedCredentials:
    def __init__(self, limiter: RateLimiter) -> None:
        self.limiter = limiter

    def check(self, address: str) -> None:
        """429 when `address` has no failed attempt left."""
        decision = self.limiter.peek(_key(address))
        if not decision.allowed:
            LIMITED.inc()
            raise RateLimited(
                "too many failed credentials from this address",
                details={"retryAfterSeconds": decision.retry_after_seconds},
                headers={"Retry-After": str(decision.retry_after_seconds)},
            )

    def record(self, address: str) -> None:
        FAILED.inc()
        self.limiter.take(_key(address))


def _key(address: str) -> str:
    return f"failed-credentials:{address}"

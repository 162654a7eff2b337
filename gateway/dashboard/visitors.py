"""The dashboard's visitors who are not signed in, limited per client address.

Pages for visitors (the sign-in page, the reference, `/device` sending them to sign in) cost no
Redis (gateway/dashboard/csrf.py), but one client sending hundreds of them at once still takes
the workers' time from everyone. So each client address has a token bucket for them
(`VISITOR_REQUESTS_PER_MINUTE`, `VISITOR_REQUESTS_BURST`; the API's limiter, decided in memory
and reconciled with Redis in the background); past it a visitor's page is a 429 with
`Retry-After`. A signed-in person's pages never spend from it, whoever shares their address, and
the dashboard's files (stylesheet, script, images: cached, no session) are not counted.
"""

from __future__ import annotations

from aiohttp import web

from gateway.dashboard.render import try_again_in
from gateway.dashboard.session import current_user
from gateway.identity.auth.sessions import SESSION_COOKIE
from gateway.state import VISITOR_LIMITER
from libs.common.client_address import client_address
from libs.common.errors import RateLimited

NOT_COUNTED = frozenset({"dashboard.assets"})


async def admit_visitor(request: web.Request) -> None:
    """429 with `Retry-After` for a visitor's request past their address's bucket. A request
    bearing a session cookie is a visitor's only once the session proves signed out."""
    if request.match_info.route.name in NOT_COUNTED:
        return
    if SESSION_COOKIE in request.cookies and await current_user(request) is not None:
        return
    decision = request.config_dict[VISITOR_LIMITER].take(f"visitor:{client_address(request)}")
    if not decision.allowed:
        raise RateLimited(
            f"Too many requests from your address. {try_again_in(decision.retry_after_seconds)}",
            headers={"Retry-After": str(decision.retry_after_seconds)},
        )

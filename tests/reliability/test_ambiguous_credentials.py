"""A credential sent twice is refused, never resolved by picking one."""

from __future__ import annotations

from multidict import CIMultiDict

from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


async def refused(gateway, headers: list[tuple[str, str]], message: str) -> None:
    response = await gateway.get(RUNS, headers=CIMultiDict(headers))
    assert response.status == 401
    assert await response.json() == {"ok": False, "code": "UNAUTHORIZED", "message": message}


async def test_two_api_keys_are_refused_whatever_their_order(gateway, identity: IdentityFactory):
    org = await identity.organization()
    valid, other = await identity.api_key(org), await identity.api_key(org)
    invalid = "avk_AAAAAAAA_" + "A" * 43
    for pair in ((valid, invalid), (invalid, valid), (valid, other), (valid, valid)):
        await refused(gateway, [("x-api-key", pair[0]), ("x-api-key", pair[1])], "more than one x-api-key header")
    assert (await gateway.get(RUNS, headers={"x-api-key": valid})).status == 200


async def test_two_bearer_tokens_are_refused(gateway, identity: IdentityFactory):
    org = await identity.organization()
    token = identity.bearer(await identity.user(org), org)
    headers = [("Authorization", f"Bearer {token}"), ("Authorization", "Bearer nonsense")]
    await refused(gateway, headers, "more than one Authorization header")


async def test_two_session_cookies_are_refused_in_one_header_or_two(gateway, identity: IdentityFactory):
    org = await identity.organization()
    mine = await identity.session(await identity.user(org), org)
    theirs = await identity.session(await identity.user(org, role="viewer"), org)
    message = "more than one app-auth.session_token cookie"
    both = f"app-auth.session_token={mine}; theme=dark; app-auth.session_token={theirs}"
    await refused(gateway, [("Cookie", both)], message)
    await refused(
        gateway, [("Cookie", f"app-auth.session_token={mine}"), ("Cookie", f"app-auth.session_token={theirs}")], message
    )
    assert (await gateway.get(RUNS, headers={"Cookie": f"theme=dark; app-auth.session_token={mine}"})).status == 200

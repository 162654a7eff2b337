"""GET /api/v1/credential: what the request's credential is (kind, organization, scopes, and the
key or the user), for any valid credential whatever its scopes; a refused one is 401."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.factories import IdentityFactory

CREDENTIAL = "/api/v1/credential"


async def test_an_api_key_with_one_narrow_scope_learns_its_organization_and_scopes(gateway, identity: IdentityFactory):
    org = await identity.organization()
    expires = datetime.now(UTC) + timedelta(days=3)
    key = await identity.api_key(org, frozenset({"simulations:read"}), expires_at=expires)
    response = await gateway.get(CREDENTIAL, headers={"x-api-key": key})
    assert response.status == 200
    data = (await response.json())["data"]
    assert data["kind"] == "api_key" and data["user"] is None
    assert data["organization"] == {"id": org.id, "slug": org.slug, "name": org.name}
    assert data["scopes"] == ["simulations:read"]
    assert data["key"]["name"] == "test key" and key.startswith(data["key"]["prefix"])
    assert datetime.fromisoformat(data["key"]["expiresAt"]) == expires


async def test_a_bearer_token_names_its_user_and_granted_scopes(gateway, identity: IdentityFactory):
    org = await identity.organization()
    user_id = await identity.user(org, role="viewer")
    token = identity.bearer(user_id, org, frozenset({"content:read", "content:write"}))
    response = await gateway.get(CREDENTIAL, headers={"Authorization": f"Bearer {token}"})
    data = (await response.json())["data"]
    assert response.status == 200
    assert (data["kind"], data["key"], data["user"]["id"]) == ("bearer", None, user_id)
    assert data["user"]["email"].endswith("@example.com")
    assert data["scopes"] == ["content:read"]  # a viewer's role allows no writes


async def test_a_session_is_described_too(gateway, identity: IdentityFactory):
    org = await identity.organization()
    user_id = await identity.user(org)
    cookie = await identity.session(user_id, org)
    response = await gateway.get(CREDENTIAL, headers={"Cookie": f"app-auth.session_token={cookie}"})
    data = (await response.json())["data"]
    assert (response.status, data["kind"], data["user"]["id"]) == (200, "session", user_id)


async def test_a_made_up_key_or_none_is_refused(gateway):
    response = await gateway.get(CREDENTIAL, headers={"x-api-key": "avk_made_up"})
    assert (response.status, await response.json()) == (
        401,
        {"ok": False, "code": "UNAUTHORIZED", "message": "invalid api key"},
    )
    assert (await gateway.get(CREDENTIAL)).status == 401


async def test_is_documented_as_needing_no_scope(gateway):
    document = await (await gateway.get("/api/v1/openapi.json")).json()
    operation = document["paths"][CREDENTIAL]["get"]
    assert operation["x-required-scope"] is None
    assert operation["description"] == "Any valid credential; no scope needed."
    assert set(document["components"]["schemas"]["Credential"]["required"]) == {
        "kind",
        "organization",
        "scopes",
        "user",
        "key",
    }

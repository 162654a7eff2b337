"""The dashboard's device page over HTTP: sign-in first, the code, the grant shown, CSRF."""

from __future__ import annotations

from gateway.identity.auth.api_keys import hash_key
from libs.common.db import cursor
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import signed_in, submit
from tests.oauth.conftest import start_device


async def stored(identity: IdentityFactory, device_code: str) -> dict:
    async with cursor(identity.pool) as cur:
        await cur.execute(
            "SELECT status, organization_id, granted_scopes FROM device_authorizations WHERE device_code_hash = %s",
            (hash_key(device_code),),
        )
        return dict(await cur.fetchone())


async def test_the_page_sends_people_to_sign_in_first(oauth):
    response = await oauth.get("/device?user_code=BCDF-GHJK", allow_redirects=False)
    assert response.status == 303
    location = response.headers["Location"]
    assert location.startswith("/login?next=/device") and location.endswith("BCDF-GHJK")


async def test_a_code_is_accepted_in_any_case_and_spacing(oauth, identity: IdentityFactory):
    org = await identity.organization()
    await signed_in(oauth, *await identity.account((org, "owner")))
    started = await start_device(oauth)
    typed = started["user_code"].lower().replace("-", " ")
    response = await oauth.get("/device", params={"user_code": typed})
    assert response.status == 200
    html = await response.text()
    assert started["user_code"] in html and "Approve aivis command line?" in html


async def test_an_unknown_code_is_refused_with_a_reason(oauth, identity: IdentityFactory):
    org = await identity.organization()
    await signed_in(oauth, *await identity.account((org, "owner")))
    response = await oauth.get("/device?user_code=BCDF-GHJK")
    assert response.status == 404
    assert "This code is not valid" in await response.text()
    response = await oauth.get("/device?user_code=AEIO-U123")  # not of the alphabet at all
    assert response.status == 404


async def test_a_member_sees_and_grants_only_the_read_scopes(oauth, identity: IdentityFactory):
    org = await identity.organization()
    await signed_in(oauth, *await identity.account((org, "member")))
    started = await start_device(oauth, scope="content:read content:write")
    page = f"/device?user_code={started['user_code']}"
    html = await (await oauth.get(page)).text()
    assert '<code class="scope">content:read</code>' in html
    assert "only approves read access on devices" in html and "<code>content:write</code>" in html
    fields = {"user_code": started["user_code"], "organization": org.slug, "decision": "approve"}
    response = await submit(oauth, page, fields, action="/device")
    assert response.status == 200
    assert "Device connected" in await response.text()
    row = await stored(identity, started["device_code"])
    assert (row["status"], str(row["organization_id"]), row["granted_scopes"]) == ("approved", org.id, ["content:read"])


async def test_a_viewer_cannot_approve_write_only_requests(oauth, identity: IdentityFactory):
    org = await identity.organization()
    await signed_in(oauth, *await identity.account((org, "viewer")))
    started = await start_device(oauth, scope="content:write")
    page = f"/device?user_code={started['user_code']}"
    html = await (await oauth.get(page)).text()
    assert "cannot grant any of the requested scopes" in html and 'value="approve"' not in html
    fields = {"user_code": started["user_code"], "organization": org.slug, "decision": "approve"}
    response = await submit(oauth, page, fields, action="/device")
    assert response.status == 422
    assert (await stored(identity, started["device_code"]))["status"] == "pending"


async def test_the_organization_is_chosen_among_the_users_memberships(oauth, identity: IdentityFactory):
    first, second, other = await identity.organization(), await identity.organization(), await identity.organization()
    await signed_in(oauth, *await identity.account((first, "owner"), (second, "viewer")))
    started = await start_device(oauth)
    page = f"/device?user_code={started['user_code']}&organization={second.slug}"
    html = await (await oauth.get(page)).text()
    assert f'<option value="{second.slug}" selected>' in html
    refused = {"user_code": started["user_code"], "organization": other.slug, "decision": "approve"}
    assert (await submit(oauth, page, refused, action="/device")).status == 422
    fields = {"user_code": started["user_code"], "organization": second.slug, "decision": "approve"}
    assert (await submit(oauth, page, fields, action="/device")).status == 200
    row = await stored(identity, started["device_code"])
    assert str(row["organization_id"]) == second.id
    assert all(scope.endswith(":read") for scope in row["granted_scopes"])


async def test_deciding_needs_the_csrf_token_and_happens_once(oauth, identity: IdentityFactory):
    org = await identity.organization()
    await signed_in(oauth, *await identity.account((org, "owner")))
    started = await start_device(oauth)
    fields = {"user_code": started["user_code"], "organization": org.slug, "decision": "approve"}
    response = await oauth.post("/device", data=fields)
    assert response.status == 403
    assert (await stored(identity, started["device_code"]))["status"] == "pending"
    page = f"/device?user_code={started['user_code']}"
    assert (await submit(oauth, page, {**fields, "decision": "deny"}, action="/device")).status == 200
    response = await submit(oauth, "/device", fields, action="/device")
    assert response.status == 404
    assert (await stored(identity, started["device_code"]))["status"] == "denied"

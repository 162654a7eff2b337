"""Literal path segments win over parameters beside them: `/content/by-path` is never a `{id}`."""

from __future__ import annotations

from gateway.edge.routes import router_path
from tests.factories import IdentityFactory

PATHS = ("/api/v1/content/by-path", "/api/v1/content/{id}", "/api/v1/content/{id}/domains", "/api/v1/apps/{appId}")


def test_a_parameter_refuses_the_literal_segments_beside_it():
    assert router_path("/api/v1/content/{id}", PATHS) == r"/api/v1/content/{id:(?!(?:by\-path)(?:/|$))[^{}/]+}"
    assert router_path("/api/v1/content/{id}/domains", PATHS).endswith("[^{}/]+}/domains")
    assert router_path("/api/v1/apps/{appId}", PATHS) == "/api/v1/apps/{appId}"
    assert router_path("/api/v1/content/by-path", PATHS) == "/api/v1/content/by-path"


async def test_a_method_the_literal_route_lacks_is_405_naming_only_its_methods(gateway, identity: IdentityFactory):
    org = await identity.organization()
    response = await gateway.patch("/api/v1/content/by-path", headers={"x-api-key": await identity.api_key(org)})
    assert response.status == 405
    assert response.headers["Allow"] == "GET"
    assert (await response.json())["code"] == "METHOD_NOT_ALLOWED"

"""Helpers of the AI-traffic tests: events, a tenant with an App and its domain calling through the
gateway, a test agent in the catalog, and an agent's Web Bot Auth key directory."""

from __future__ import annotations

import base64
import io
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from http_message_signatures import HTTPMessageSigner, algorithms
from http_message_signatures.resolvers import MappingKeyResolver

from libs.common.db import transaction
from libs.common.encoding import dumps, loads
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import apps as app_queries
from services.traffic.catalog import SNAPSHOT
from services.traffic.signatures import DIRECTORY_PATH, TAG, thumbprint
from tests.factories import IdentityFactory, Org, unique

Client = TestClient[web.Request, web.Application]

# The test agent's published (complete) addresses, and its reverse-DNS suffix.
TESTBOT_RANGE = "198.51.100.0/24"
TESTBOT_SUFFIX = ".crawl.testbot.example"
TESTBOT_UA = "Mozilla/5.0 (compatible; TestBot/1.0; +https://testbot.example/bot)"
GPTBOT_UA = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
# An address in GPTBot's published 20.171.206.0/24 (the committed snapshot): its requests are verified by ip.
GPTBOT_IP = "20.171.206.7"
BROWSER_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15"


def write_test_catalog(path: Path, key_directory_origin: str) -> Path:
    """The committed catalog plus `testbot`, verifiable by every means."""
    snapshot = loads(SNAPSHOT.read_bytes())
    snapshot["agents"].insert(
        0,
        {
            "id": "testbot",
            "name": "TestBot",
            "operator": "Test Operator",
            "category": "search",
            "robotsToken": "TestBot",
            "patterns": ["TestBot/"],
            "docs": "https://testbot.example/bot",
            "source": "curated",
            "verification": {
                "ipRanges": {
                    "url": "https://testbot.example/ranges.json",
                    "prefixes": [TESTBOT_RANGE],
                    "complete": True,
                    "fetchedAt": "2026-11-28T00:00:00+00:00",
                },
                "rdnsSuffixes": [TESTBOT_SUFFIX],
                "signatureAgents": [key_directory_origin],
            },
        },
    )
    path.write_bytes(dumps(snapshot))
    return path


def base_url(server: TestServer) -> str:
    return f"http://{server.host}:{server.port}"


@dataclass
class TrafficApi:
    gateway: Client
    server: TestServer
    store: str


def event(host: str, **fields: Any) -> dict[str, Any]:
    """A GPTBot request to `host` now, unless `fields` say otherwise."""
    return {
        "id": fields.pop("id", str(uuid.uuid4())),
        "occurredAt": datetime.now(UTC).isoformat(),
        "host": host,
        "path": "/llms.txt",
        "method": "GET",
        "status": 200,
        "userAgent": GPTBOT_UA,
        "ip": GPTBOT_IP,
        "bytes": 1200,
        "durationMs": 12.5,
        **fields,
    }


@dataclass
class Tenant:
    api: TrafficApi
    org: Org
    key: str
    app_id: str
    host: str

    @classmethod
    async def make(cls, api: TrafficApi, identity: IdentityFactory, apps_pool: Any) -> Tenant:
        org = await identity.organization()
        app_id, host = await app_domain(apps_pool, org)
        return cls(api, org, await identity.api_key(org), app_id, host)

    @property
    def headers(self) -> dict[str, str]:
        return {"x-api-key": self.key}

    async def send(
        self, events: list[dict[str, Any]] | bytes, content_type: str = "application/json"
    ) -> tuple[int, Any]:
        body = io.BytesIO(events if isinstance(events, bytes) else dumps(events))
        headers = {**self.headers, "Content-Type": content_type}
        async with self.api.gateway.post("/api/v1/analytics/events", data=body, headers=headers) as response:
            return response.status, await response.json()

    async def get(self, path: str, **query: str) -> tuple[int, Any]:
        async with self.api.gateway.get(path, params=query, headers=self.headers) as response:
            return response.status, await response.json()


async def app_domain(apps_pool: Any, org: Org, hostname: str | None = None) -> tuple[str, str]:
    """A new App of `org` and an (unverified) domain claimed for it: (app id, hostname)."""
    async with transaction(apps_pool) as cur:
        app = await app_queries.create_app(cur, org.id, "Site", unique("site"), {})
        values = {"scope": "app", "app_id": app["id"], "domain": hostname or f"{unique('site')}.example.com"}
        domain = await register_domain(cur, LocalEdgeProvider(), org.id, {"type": "web", **values})
    return str(app["id"]), domain["domain"]


@dataclass
class _SignedRequest:
    method: str
    url: str
    headers: dict[str, str]


@dataclass
class KeyDirectory:
    """An agent's Web Bot Auth key directory on loopback, and the agent signing with its key."""

    key: Ed25519PrivateKey
    server: TestServer | None = None

    @property
    def origin(self) -> str:
        assert self.server is not None
        return base_url(self.server)

    @property
    def jwk(self) -> dict[str, str]:
        raw = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed25519", "x": base64.urlsafe_b64encode(raw).rstrip(b"=").decode()}

    def app(self) -> web.Application:
        async def directory(_: web.Request) -> web.Response:
            return web.json_response({"keys": [self.jwk]})

        app = web.Application()
        app.router.add_get(DIRECTORY_PATH, directory)
        return app

    def sign(self, host: str, path: str, at: datetime, key: Ed25519PrivateKey | None = None) -> dict[str, str]:
        """The Signature, Signature-Input and Signature-Agent of a request to `host` made at `at`."""
        key_id = thumbprint(self.jwk)
        request = _SignedRequest("GET", f"https://{host}{path}", {"Signature-Agent": f'"{self.origin}"'})
        signer = HTTPMessageSigner(
            signature_algorithm=algorithms.ED25519,
            key_resolver=MappingKeyResolver(public_keys={}, private_keys={key_id: key or self.key}),
        )
        signer.sign(
            request,
            key_id=key_id,
            created=at,
            tag=TAG,
            label="sig1",
            covered_component_ids=("@authority", "signature-agent"),
        )
        return {
            "signature": request.headers["Signature"],
            "signatureInput": request.headers["Signature-Input"],
            "signatureAgent": request.headers["Signature-Agent"],
        }

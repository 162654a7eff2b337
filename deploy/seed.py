"""The demo organization: a product with site pages, personas, topics and prompt suggestions, its
brand, competitors, tracked prompts and analysed answers (deploy/seed_answers.py), a user who can
sign in to the dashboard, an app publishing the pages with a legacy routing domain and a week of AI
agents reading it, agent-simulation tasks over the app with their runs queued, and an API key with
every scope.

Every row has a fixed id (a page, a fixed path; a persona or topic, a name unique in its
product), so running the seed again changes nothing. The key and the password are stored as
hashes only; they are kept in .data/demo-api-key and .data/demo-password (mode 0600) so later
runs can print them again, and new ones are made only when those no longer work.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp

from deploy.seed_answers import seed_answers
from deploy.seed_simulations import seed_simulations
from gateway import product_queries
from gateway import queries as identity
from gateway.identity.auth import key_queries
from gateway.identity.auth.api_keys import create_api_key, hash_key
from gateway.identity.auth.passwords import hash_password, verify_password
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.bootstrap import part_dsn
from libs.common.db import create_pool, cursor, fetch_all, fetch_value, transaction
from libs.common.encoding import loads
from libs.common.errors import Conflict
from libs.common.internal_token import Product
from libs.contract.parts import APPS, CONTENT, GATEWAY, PERSONAS, SIMULATIONS, TRAFFIC, Part
from libs.contract.validators import normalize_route_path, rfc3986_route_path
from libs.local.stores import DATA
from services.apps import legacy
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import app_routes as route_queries
from services.apps.queries import apps as apps_queries
from services.apps.queries import domains as domain_queries
from services.content import editing
from services.content.domains import DomainChange
from services.content.locations import locate
from services.content.queries import documents
from services.personas import queries as personas
from services.personas.generator import TemplateGenerator
from services.personas.regeneration import regenerate

NAMESPACE = uuid.UUID("5f0b7c1e-8a43-4d6e-9a77-3c2f1b0d9e21")
KEY_FILE = DATA / "demo-api-key"
PASSWORD_FILE_NAME = "demo-password"


def demo_id(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, name))


ORGANIZATION = {"id": demo_id("organization"), "slug": "demo", "name": "Demo Organization"}
PRODUCT = {"id": demo_id("product"), "slug": "demo-product", "name": "Demo Product"}
USER = {"id": demo_id("user"), "email": "demo@example.com", "name": "Demo User"}

APP: dict[str, Any] = {"id": demo_id("app:docs"), "name": "Demo Docs", "slug": "demo-docs", "metadata": {"seed": True}}
APP_DOMAIN: dict[str, Any] = {
    "id": demo_id("domain:docs"),
    "domain": "docs.demo.example.com",
    "type": "web",
    "origin": "https://origin.demo.example.com",
}
LEGACY_DOMAIN: dict[str, Any] = {
    "id": demo_id("domain:legacy"),
    "productId": PRODUCT["id"],
    "domain": "legacy.demo.example.com",
    "fallbackOrigin": "https://www.demo.example.com",
    "paths": [{"pathPrefix": "/docs", "appId": APP["id"], "preservePathPrefix": True}],
}

PAGES: list[dict[str, Any]] = [
    {
        "slug": "getting-started",
        "title": "Getting started",
        "status": "published",
        "content": "# Getting started\n\nCreate an API key, then list your site pages.",
        "description": "First steps with the Demo Product.",
    },
    {
        "slug": "pricing",
        "title": "Pricing",
        "status": "published",
        "priority": 80,
        "content": "# Pricing\n\nOne plan: $29 per month, billed monthly, with every feature included.",
        "meta_title": "Demo Product pricing",
        "meta_description": "Plans and prices of the Demo Product.",
    },
    {
        "slug": "blog/launch-day",
        "title": "Launch day",
        "status": "draft",
        "content": "# Launch day\n\nWhat we shipped, and what comes next.",
    },
    {
        "slug": "docs/api/authentication",
        "title": "Authentication",
        "status": "published",
        "content": "# Authentication\n\nSend `x-api-key`, a bearer token or the session cookie.",
    },
]
DEMO_PERSONAS: list[dict[str, Any]] = [
    {
        "name": "Data Lead",
        "description": "Owns the analytics stack of a mid-size software company.",
        "system_prompt": "Answer as a pragmatic data lead who weighs cost against time to insight.",
    },
    {
        "name": "Growth Marketer",
        "description": "Runs acquisition experiments and reports on funnels weekly.",
        "system_prompt": None,
    },
]
DEMO_TOPICS: list[dict[str, Any]] = [
    {"name": "product analytics", "description": "How teams measure feature adoption and retention."},
    {"name": "funnel reporting", "description": None},
]


def _pool(admin: str, part: Part) -> Any:
    return create_pool(part_dsn(admin, part), part.schema, 1, 2)


@dataclass(frozen=True)
class Demo:
    """What `make run` prints: the demo API key and the demo account's sign-in."""

    key: str
    email: str
    password: str


def _read_secret(path: Path) -> str:
    return path.read_text().strip() if path.exists() else ""


def _keep_secret(path: Path, value: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(value + "\n")


async def _seed_identity(admin: str, key_file: Path) -> Demo:
    """The organization, product, user and membership; a working demo API key and password."""
    password_file = key_file.with_name(PASSWORD_FILE_NAME)
    async with _pool(admin, GATEWAY) as pool, transaction(pool) as cur:
        if await identity.find_organization(cur, ORGANIZATION["slug"]) is None:
            await identity.create_organization(cur, ORGANIZATION["slug"], ORGANIZATION["name"], ORGANIZATION["id"])
        if await product_queries.find_product(cur, PRODUCT["id"]) is None:
            await product_queries.create_product(
                cur, ORGANIZATION["id"], PRODUCT["name"], PRODUCT["slug"], PRODUCT["id"]
            )
        if await fetch_value(cur, "SELECT 1 FROM users WHERE id = %s", (USER["id"],)) is None:
            await identity.create_user(cur, USER["email"], USER["name"], USER["id"])
        await identity.upsert_membership(cur, USER["id"], ORGANIZATION["id"], "owner")
        key = _read_secret(key_file)
        if not key or await key_queries.find_active_key_by_hash(cur, hash_key(key)) is None:
            key, _ = await create_api_key(cur, ORGANIZATION["id"], "demo (make run)", ALL_SCOPES)
            _keep_secret(key_file, key)
        password = _read_secret(password_file)
        user = await identity.find_user_for_sign_in(cur, USER["email"])
        if not password or user is None or not await verify_password(user["password_hash"], password):
            password = secrets.token_urlsafe(12)
            await identity.set_password_hash(cur, USER["id"], hash_password(password))
            _keep_secret(password_file, password)
    return Demo(key, USER["email"], password)


async def _seed_content(admin: str) -> None:
    """Site pages of the demo product, through the content service's own write path (events included)."""
    async with _pool(admin, CONTENT) as pool, transaction(pool) as cur:
        for page in PAGES:
            values = dict(page)
            slug = values.pop("slug")
            if await documents.find_by_path(cur, PRODUCT["id"], locate(slug, None).file_path) is None:
                await editing.create_document(cur, ORGANIZATION["id"], PRODUCT["id"], slug, values, DomainChange(), {})


async def _seed_simulations(admin: str) -> None:
    """Tasks over the demo App and their runs, queued for the simulations part's workers."""
    async with _pool(admin, SIMULATIONS) as pool, transaction(pool) as cur:
        await seed_simulations(cur, ORGANIZATION["id"], APP["id"])


async def _seed_personas(admin: str) -> None:
    """Personas and topics (a name already there is kept), then suggestions once, through the
    personas service's own code."""
    organization_id, product_id = ORGANIZATION["id"], PRODUCT["id"]
    async with _pool(admin, PERSONAS) as pool:
        async with cursor(pool) as cur:
            for persona in DEMO_PERSONAS:
                with suppress(Conflict):
                    await personas.create_persona(cur, organization_id, product_id, persona)
            for topic in DEMO_TOPICS:
                with suppress(Conflict):
                    await personas.create_topic(cur, organization_id, product_id, topic)
            suggestions = loads(await personas.list_suggestions(cur, organization_id, product_id, {}, 1, 0))
        if suggestions["total"] == 0:
            await regenerate(pool, TemplateGenerator(), organization_id, Product(**PRODUCT))


async def _published_pages(admin: str) -> list[tuple[str, str]]:
    """(path, document id) of the demo's published pages, which the demo App routes."""
    async with _pool(admin, CONTENT) as pool, cursor(pool) as cur:
        found = [
            (page["slug"], await documents.find_by_path(cur, PRODUCT["id"], locate(page["slug"], None).file_path))
            for page in PAGES
            if page["status"] == "published"
        ]
    return [(locate(slug, None).file_path, str(row["id"])) for slug, row in found if row is not None]


async def _seed_apps(admin: str) -> None:
    """An app of the demo product with a domain routing its published pages (served by the edge:
    `curl -H 'Host: docs.demo.example.com' http://127.0.0.1:8087/pricing`), and a legacy routing
    domain pointing at it."""
    organization_id, edge = ORGANIZATION["id"], LocalEdgeProvider()
    pages = await _published_pages(admin)
    async with _pool(admin, APPS) as pool, transaction(pool) as cur:
        if not await apps_queries.app_exists(cur, APP["id"]):  # a deleted demo app stays deleted
            await apps_queries.create_app(cur, organization_id, APP["name"], APP["slug"], APP["metadata"], APP["id"])
            await apps_queries.create_resource(cur, organization_id, APP["id"], "product", PRODUCT["id"])
        # Each published page at its own path, once (the pages may be seeded after the app).
        routed = {
            row["path_key"]
            for row in await fetch_all(
                cur, "SELECT path_key FROM routes WHERE app_id = %s AND deleted_at IS NULL", (APP["id"],)
            )
        }
        live = await fetch_value(cur, "SELECT 1 FROM apps WHERE id = %s AND deleted_at IS NULL", (APP["id"],))
        routes = [
            (rfc3986_route_path(path), normalize_route_path(path), "product_document", document_id)
            for path, document_id in pages
            if normalize_route_path(path) not in routed
        ]
        if live and routes:
            await route_queries.insert_routes(cur, organization_id, APP["id"], routes)
        if await domain_queries.find_domain(cur, APP_DOMAIN["id"]) is None:
            await register_domain(cur, edge, organization_id, {**APP_DOMAIN, "scope": "app", "app_id": APP["id"]})
        if await domain_queries.find_domain(cur, LEGACY_DOMAIN["id"]) is None:
            data = legacy.load_legacy_domain(LEGACY_DOMAIN)
            await legacy.create_legacy_domain(cur, edge, organization_id, data)


# A week of AI agents reading the demo app, so its AI-traffic page has something to show: each from
# an address of its operator's published list where there is one (services/traffic/data/agents.json).
DEMO_AGENTS = {
    "GPTBot": (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        "20.171.206.80",
    ),
    "OAI-SearchBot": ("Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)", "51.8.102.80"),
    "ChatGPT-User": (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0",
        "23.98.142.180",
    ),
    "ClaudeBot": ("Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "203.0.113.80"),
    "PerplexityBot": (
        "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
        "107.20.236.150",
    ),
    "CCBot": ("CCBot/2.0 (https://commoncrawl.org/faq/)", "18.97.14.84"),
}
DEMO_PATHS = ("/llms.txt", "/llms-full.txt", "/sitemap.xml", "/getting-started.md", "/pricing.md", "/missing")


def demo_traffic(now: datetime) -> list[dict[str, Any]]:
    """About 300 requests over the last 6 days, each id fixed by its day, agent and rank."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    events = []
    for back in range(6):
        for rank, (name, (user_agent, address)) in enumerate(DEMO_AGENTS.items()):
            for visit in range(3 + (back * 5 + rank * 3) % 9):
                at = min(day - timedelta(days=back) + timedelta(hours=1 + visit * 2, minutes=rank * 7), now)
                path = DEMO_PATHS[(visit + rank) % len(DEMO_PATHS)]
                events.append(
                    {
                        "id": f"demo-{at:%Y%m%d}-{name}-{visit}",
                        "occurred_at": at,
                        "host": APP_DOMAIN["domain"],
                        "path": path,
                        "method": "GET",
                        "status": 404 if path == "/missing" else 200,
                        "user_agent": user_agent,
                        "ip": address,
                        "bytes": 2048 + 512 * visit,
                    }
                )
    return events


async def _seed_traffic(admin: str) -> None:
    """The demo app's AI traffic, recorded through the traffic service's own path (idempotent by id)."""
    from services.traffic.catalog import Catalog
    from services.traffic.hosts import AppHost
    from services.traffic.recording import Outcome, Recorder
    from services.traffic.signatures import SignatureChecker
    from services.traffic.store_postgres import PostgresStore
    from services.traffic.verification import ReverseDns, Verifier

    now = datetime.now(UTC)
    app_host = AppHost(APP["id"], APP_DOMAIN["id"])
    async with _pool(admin, TRAFFIC) as pool, aiohttp.ClientSession() as session:
        store = PostgresStore(pool)
        await store.maintain(now, 90)
        # The demo's agents are verified by neither DNS nor signature: nothing is asked of the network.
        verifier = Verifier(ReverseDns((), 53, 1), SignatureChecker(session, 1))
        events = [(index, event, app_host) for index, event in enumerate(demo_traffic(now))]
        await Recorder(Catalog.load(), verifier, store).record(ORGANIZATION["id"], events, "ingest", now, Outcome())


async def seed(admin: str, key_file: Path) -> Demo:
    demo = await _seed_identity(admin, key_file)
    await _seed_content(admin)
    await _seed_personas(admin)
    await seed_answers(admin, ORGANIZATION["id"], PRODUCT["id"])
    await _seed_apps(admin)
    await _seed_simulations(admin)
    await _seed_traffic(admin)
    return demo


def run(admin: str, key_file: Path = KEY_FILE) -> Demo:
    """Seed the demo data (idempotent); the demo API key is kept in `key_file`, the demo
    account's password beside it."""
    return asyncio.run(seed(admin, key_file))

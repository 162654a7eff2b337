"""The demo organization: a product with site pages, personas, topics and prompt suggestions,
a user who can sign in to the dashboard, simulation runs, an app with a legacy routing domain, and an
API key with every scope.

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

from gateway import queries as identity
from gateway.auth.api_keys import create_api_key, hash_key
from gateway.auth.passwords import hash_password, verify_password
from gateway.auth.scopes import ALL_SCOPES
from libs.common.bootstrap import part_dsn
from libs.common.db import create_pool, cursor, fetch_value, transaction
from libs.common.encoding import loads
from libs.common.errors import Conflict
from libs.common.internal_token import Product
from libs.common.validators import normalize_route_path
from libs.contract.parts import APPS, CONTENT, GATEWAY, PERSONAS, SIMULATIONS, Part
from libs.local.stores import DATA
from services.apps import legacy
from services.apps.domains import register_domain
from services.apps.edge import LocalEdgeProvider
from services.apps.queries import app_routes as route_queries
from services.apps.queries import apps as apps_queries
from services.apps.queries import domains as domain_queries
from services.apps.queries import publication
from services.content import editing
from services.content.domains import DomainChange
from services.content.locations import locate
from services.content.queries import documents
from services.personas import queries as personas
from services.personas.generator import TemplateGenerator
from services.personas.regeneration import regenerate
from services.simulations import queries as simulations

NAMESPACE = uuid.UUID("5f0b7c1e-8a43-4d6e-9a77-3c2f1b0d9e21")
KEY_FILE = DATA / "demo-api-key"
PASSWORD_FILE_NAME = "demo-password"


def demo_id(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, name))


ORGANIZATION = {"id": demo_id("organization"), "slug": "demo", "name": "Demo Organization"}
PRODUCT = {"id": demo_id("product"), "slug": "demo-product", "name": "Demo Product"}
USER = {"id": demo_id("user"), "email": "demo@example.com", "name": "Demo User"}

APP: dict[str, Any] = {"id": demo_id("app:docs"), "name": "Demo Docs", "slug": "demo-docs", "metadata": {"seed": True}}
APP_DOMAIN: dict[str, Any] = {"id": demo_id("domain:docs"), "domain": "docs.demo.example.com", "type": "web",
              "origin": "https://origin.demo.example.com"}  # fmt: skip
LEGACY_DOMAIN: dict[str, Any] = {
    "id": demo_id("domain:legacy"), "productId": PRODUCT["id"], "domain": "legacy.demo.example.com",
    "fallbackOrigin": "https://www.demo.example.com",
    "paths": [{"pathPrefix": "/docs", "appId": APP["id"], "preservePathPrefix": True}],
}  # fmt: skip

TASKS = [
    {"id": demo_id("task:checkout"), "name": "Complete a checkout", "category": "commerce"},
    {"id": demo_id("task:support"), "name": "Find the refund policy", "category": "support"},
]
ENVIRONMENTS = [
    {"id": demo_id("env:browser"), "task_id": TASKS[0]["id"], "name": "Headless browser",
     "agent_config": {"model": "demo-agent", "temperature": 0.2, "maxSteps": 40}},
    {"id": demo_id("env:chat"), "task_id": TASKS[1]["id"], "name": "Chat assistant",
     "agent_config": {"model": "demo-agent", "temperature": 0.0, "maxSteps": 12}},
]  # fmt: skip
PAGES = [
    {"slug": "getting-started", "title": "Getting started", "status": "published",
     "content": "# Getting started\n\nCreate an API key, then list your site pages.",
     "description": "First steps with the Demo Product."},
    {"slug": "pricing", "title": "Pricing", "status": "published", "content": "# Pricing\n\nOne plan, billed monthly.",
     "meta_title": "Demo Product pricing", "meta_description": "Plans and prices of the Demo Product."},
    {"slug": "blog/launch-day", "title": "Launch day", "status": "draft",
     "content": "# Launch day\n\nWhat we shipped, and what comes next."},
    {"slug": "docs/api/authentication", "title": "Authentication", "status": "published",
     "content": "# Authentication\n\nSend `x-api-key`, a bearer token or the session cookie."},
]  # fmt: skip
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
]  # fmt: skip
RUN_OUTCOMES = [
    ("completed", True, 0.92), ("completed", False, 0.41), ("failed", False, 0.0), ("completed", True, 0.88),
    ("running", None, None),
]  # fmt: skip


def demo_runs() -> list[dict[str, Any]]:
    started = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    runs = []
    for index, (status, passed, score) in enumerate(RUN_OUTCOMES):
        environment = ENVIRONMENTS[index % len(ENVIRONMENTS)]
        begin = started + timedelta(hours=index)
        finished = status != "running"
        runs.append({
            "id": demo_id(f"run:{index}"), "organization_id": ORGANIZATION["id"],
            "environment_id": environment["id"], "task_id": environment["task_id"], "status": status,
            "sandbox_id": f"sbx-demo-{index}", "sandbox_snapshot": None, "overall_score": score, "passed": passed,
            "tokens_used": 12000 + 1500 * index, "cost_usd": round(0.04 + 0.01 * index, 4),
            "started_at": begin, "completed_at": begin + timedelta(minutes=7) if finished else None,
            "duration": 420.0 if finished else None, "volume_ids": [], "log_s3_keys": [f"demo/runs/{index}.log"],
            "metadata": {"seed": True},
        })  # fmt: skip
    return runs


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
        if await identity.find_product(cur, PRODUCT["id"]) is None:
            await identity.create_product(cur, ORGANIZATION["id"], PRODUCT["name"], PRODUCT["slug"], PRODUCT["id"])
        if await fetch_value(cur, "SELECT 1 FROM users WHERE id = %s", (USER["id"],)) is None:
            await identity.create_user(cur, USER["email"], USER["name"], USER["id"])
        await identity.upsert_membership(cur, USER["id"], ORGANIZATION["id"], "owner")
        key = _read_secret(key_file)
        if not key or await identity.find_active_key_by_hash(cur, hash_key(key)) is None:
            key, _ = await create_api_key(cur, ORGANIZATION["id"], "demo (make run)", ALL_SCOPES)
            _keep_secret(key_file, key)
        password = _read_secret(password_file)
        user = await identity.find_user_for_sign_in(cur, USER["email"])
        if not password or user is None or not await verify_password(user["password_hash"], password):
            password = secrets.token_urlsafe(12)
            await identity.set_password_hash(cur, USER["id"], hash_password(password))
            _keep_secret(password_file, password)
    return Demo(key, USER["email"], password)


async def _seed_content(admin: str) -> dict[str, str]:
    """Site pages of the demo product, through the content service's own write path (events included);
    answers the path -> id of the published ones."""
    published: dict[str, str] = {}
    async with _pool(admin, CONTENT) as pool, transaction(pool) as cur:
        for page in PAGES:
            values = dict(page)
            slug = values.pop("slug")
            path = locate(slug, None).file_path
            found = await documents.find_by_path(cur, PRODUCT["id"], path)
            if found is None:
                found = await editing.create_document(
                    cur, ORGANIZATION["id"], PRODUCT["id"], slug, values, DomainChange(), {}
                )
            if page["status"] == "published":
                published[path] = str(found["id"])
    return published


async def _seed_simulations(admin: str) -> None:
    """Tasks, environments and runs, through the simulations service's own intake code."""
    async with _pool(admin, SIMULATIONS) as pool, transaction(pool) as cur:
        for task in TASKS:
            await simulations.create_task(cur, {**task, "organization_id": ORGANIZATION["id"]})
        for environment in ENVIRONMENTS:
            await simulations.create_environment(cur, {**environment, "organization_id": ORGANIZATION["id"]})
        for run in demo_runs():
            await simulations.create_run(cur, run)


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


async def _seed_apps(admin: str, published: dict[str, str]) -> None:
    """An app of the demo product with a domain routing its published pages (served by the edge:
    `curl -H 'Host: docs.demo.example.com' http://127.0.0.1:8087/pricing`), and a legacy routing
    domain pointing at it."""
    organization_id, edge = ORGANIZATION["id"], LocalEdgeProvider()
    async with _pool(admin, APPS) as pool, transaction(pool) as cur:
        if not await apps_queries.app_exists(cur, APP["id"]):  # a deleted demo app stays deleted
            await apps_queries.create_app(cur, organization_id, APP["name"], APP["slug"], APP["metadata"], APP["id"])
            await apps_queries.create_resource(cur, organization_id, APP["id"], "product", PRODUCT["id"])
        if await domain_queries.find_domain(cur, APP_DOMAIN["id"]) is None:
            await register_domain(cur, edge, organization_id, {**APP_DOMAIN, "scope": "app", "app_id": APP["id"]})
        if await domain_queries.find_domain(cur, LEGACY_DOMAIN["id"]) is None:
            data = legacy.load_legacy_domain(LEGACY_DOMAIN)
            await legacy.create_legacy_domain(cur, edge, organization_id, data)
        if await apps_queries.live_app_ids(cur, organization_id, [APP["id"]]):
            routed = {path for path, _ in loads(await publication.route_listing(cur, APP["id"]))}
            missing = [(path, normalize_route_path(path), "product_document", document_id)
                       for path, document_id in published.items() if path not in routed]  # fmt: skip
            await route_queries.insert_routes(cur, organization_id, APP["id"], missing)


async def seed(admin: str, key_file: Path) -> Demo:
    demo = await _seed_identity(admin, key_file)
    published = await _seed_content(admin)
    await _seed_personas(admin)
    await _seed_simulations(admin)
    await _seed_apps(admin, published)
    return demo


def run(admin: str, key_file: Path = KEY_FILE) -> Demo:
    """Seed the demo data (idempotent); the demo API key is kept in `key_file`, the demo
    account's password beside it."""
    return asyncio.run(seed(admin, key_file))

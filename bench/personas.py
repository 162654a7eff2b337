"""Personas and prompt suggestions through the gateway, on real gunicorn processes.

- PUT /api/v1/personas/{id}: latency percentiles of partial updates at concurrency 8.
- GET /api/v1/prompt-suggestions?productId=: throughput with wrk, direct and through the gateway.
- POST /api/v1/prompt-suggestions/regenerate for products of 10 topics and 5 personas (140
  suggestions each): one at a time; four products at once (the lock is per product, so they run
  side by side); one product four at once (serialised by its lock).

    python -m deploy.stack exec -- python -m bench.personas
"""

from __future__ import annotations

import asyncio

from bench.common import BenchStack, Latency, Request, Throughput, bench_stack, measure, report, say, wrk
from gateway import product_queries
from gateway import queries as identity
from gateway.identity.auth.api_keys import create_api_key
from gateway.identity.auth.scopes import ALL_SCOPES
from libs.common.db import create_pool, transaction
from libs.common.encoding import loads
from libs.common.internal_token import Organization, Product
from libs.contract.parts import GATEWAY, PERSONAS
from services.personas import queries as personas
from services.personas.generator import TemplateGenerator
from services.personas.regeneration import regenerate

PRODUCTS = 4
TOPICS = 10
PERSONAS_PER_PRODUCT = 5
SECONDS = 10
CONNECTIONS = 32


async def seed(stack: BenchStack) -> tuple[str, Organization, list[Product], list[str]]:
    """An organization with a key and four products, each with topics, personas and suggestions."""
    async with create_pool(stack.part_dsn(GATEWAY), GATEWAY.schema, 1, 2) as pool, transaction(pool) as cur:
        row = await identity.create_organization(cur, "bench-personas", "Bench Personas")
        organization = Organization(str(row["id"]), row["slug"], row["name"])
        key, _ = await create_api_key(cur, organization.id, "bench", ALL_SCOPES)
        products = []
        for index in range(PRODUCTS):
            row = await product_queries.create_product(cur, organization.id, f"Product {index}", f"product-{index}")
            products.append(Product(str(row["id"]), row["name"], row["slug"]))
    persona_ids = []
    async with create_pool(stack.part_dsn(PERSONAS), PERSONAS.schema, 1, 2) as pool:
        for product in products:
            async with transaction(pool) as cur:
                for index in range(TOPICS):
                    await personas.create_topic(
                        cur, organization.id, product.id, {"name": f"topic {index}", "description": None}
                    )
                for index in range(PERSONAS_PER_PRODUCT):
                    persona = await personas.create_persona(
                        cur,
                        organization.id,
                        product.id,
                        {"name": f"Persona {index}", "description": "Buys software.", "system_prompt": None},
                    )
                    persona_ids.append(loads(persona)["id"])
            await regenerate(pool, TemplateGenerator(), organization.id, product)
    return key, organization, products, persona_ids


def line(result: Latency) -> str:
    return (
        f"p50 {result.p50_ms:6.2f} ms   p99 {result.p99_ms:6.2f} ms   {result.requests_per_second:7.0f} req/s"
        f"   ({result.count} requests, {result.failures} failed)"
    )


def wrk_line(result: Throughput) -> str:
    return f"{result.requests_per_second:7.0f} req/s   p50 {result.p50_ms:6.2f} ms   p99 {result.p99_ms:6.2f} ms"


def main() -> None:
    with bench_stack((GATEWAY, PERSONAS)) as stack:
        key, organization, products, persona_ids = asyncio.run(seed(stack))
        gateway, headers = stack.url("gateway"), {"x-api-key": key}
        say("persona updates")
        updates = [
            Request("PUT", f"{gateway}/api/v1/personas/{persona_id}", headers, {"description": f"Version {version}."})
            for version in range(2)
            for persona_id in persona_ids
        ]
        update = measure(updates, concurrency=8, count=2000)

        say("suggestion lists")
        path = f"/api/v1/prompt-suggestions?productId={products[0].id}"
        wrk(gateway + path, headers, seconds=2)  # every gateway worker caches the key
        token = stack.internal_token(organization, products[0])
        direct = wrk(stack.url("personas") + path, {"X-Internal-Token": token}, SECONDS, CONNECTIONS)
        through = wrk(gateway + path, headers, SECONDS, CONNECTIONS)

        say("regenerations")

        def regenerations(targets: list[Product]) -> list[Request]:
            url = f"{gateway}/api/v1/prompt-suggestions/regenerate"
            return [Request("POST", url, headers, {"productId": product.id}) for product in targets]

        alone = measure(regenerations(products[:1]), concurrency=1, count=200, warmup=10)
        side_by_side = measure(regenerations(products), concurrency=PRODUCTS, count=400, warmup=10)
        queued = measure(regenerations(products[:1]), concurrency=PRODUCTS, count=200, warmup=10)

        suggestions = TOPICS * (4 + 2 * PERSONAS_PER_PRODUCT)
        report(
            f"Personas and prompt suggestions through the gateway ({TOPICS} topics x {PERSONAS_PER_PRODUCT} personas"
            f" = {suggestions} suggestions a product)",
            [
                ("PUT persona, concurrency 8", line(update)),
                (f"GET suggestions (50 of {suggestions}), direct, wrk -c{CONNECTIONS}", wrk_line(direct)),
                (f"GET suggestions (50 of {suggestions}), gateway, wrk -c{CONNECTIONS}", wrk_line(through)),
                ("  ratio", f"{through.requests_per_second / direct.requests_per_second:.2f} of direct"),
                ("  non-2xx", f"{direct.non_2xx + through.non_2xx}"),
                ("regenerate, one at a time", line(alone)),
                (f"regenerate, {PRODUCTS} products at once", line(side_by_side)),
                (f"regenerate, one product {PRODUCTS} at once", line(queued)),
            ],
        )


if __name__ == "__main__":
    main()

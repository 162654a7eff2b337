"""Operator commands of the apps service, run with the service's own environment.

    python -m services.apps.admin [--json] legacy-domain --org ORG_ID --product PRODUCT_ID \\
        --domain legacy.example.com --fallback-origin https://www.example.com \\
        --path /docs=APP_ID [--path-stripped /blog=APP_ID ...]

`legacy-domain` creates a product-scoped web domain with a legacy routing config (deprecated
feature, kept for configs that clients still read). `--path` keeps the prefix when forwarding to
the app, `--path-stripped` removes it. The product must be one the apps service knows (from the
gateway's product events). The created domain is printed, as one JSON object with `--json`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping
from typing import Any

from libs.common.cli import OperatorParser, parse_uuid
from libs.common.db import create_pool, transaction
from libs.common.encoding import dumps
from libs.common.errors import ApiError, ValidationFailed
from libs.common.settings import SettingsError
from services.apps.app import load_settings
from services.apps.edge import EDGE_PROVIDERS
from services.apps.legacy import create_legacy_domain, load_legacy_domain
from services.apps.queries.products import live_products
from services.apps.settings import AppsSettings


def parse_path(text: str) -> tuple[str, str]:
    prefix, separator, app_id = text.partition("=")
    if not separator or not prefix or not app_id:
        raise argparse.ArgumentTypeError(f"expected PREFIX=APP_ID, got {text!r}")
    return prefix, app_id


def parser() -> argparse.ArgumentParser:
    root = OperatorParser(prog="python -m services.apps.admin", description="Apps service operator commands.")
    root.add_argument("--json", action="store_true", help="print one JSON object")
    commands = root.add_subparsers(dest="command", required=True)
    legacy = commands.add_parser("legacy-domain", help="a product-scoped web domain with a legacy routing config")
    legacy.add_argument("--org", required=True, type=parse_uuid, help="the organization's id")
    legacy.add_argument("--product", required=True, help="the id of the organization's product the domain serves")
    legacy.add_argument("--domain", required=True, help="the hostname")
    legacy.add_argument("--fallback-origin", required=True, help="where requests no path prefix matches go")
    legacy.add_argument(
        "--path",
        type=parse_path,
        action="append",
        default=[],
        metavar="PREFIX=APP_ID",
        help="send requests under PREFIX to the app, prefix kept (repeatable)",
    )
    legacy.add_argument(
        "--path-stripped",
        type=parse_path,
        action="append",
        default=[],
        metavar="PREFIX=APP_ID",
        help="send requests under PREFIX to the app, prefix removed (repeatable)",
    )
    return root


async def check_product(cur: Any, organization_id: str, product_id: str) -> None:
    """The product must be a live product of the organization, as the apps service knows it."""
    if not await live_products(cur, organization_id, [product_id]):
        raise ValidationFailed(details={"product": "No such product in this organization."})


async def legacy_domain(settings: AppsSettings, args: argparse.Namespace) -> dict[str, Any]:
    data = load_legacy_domain(
        {
            "productId": args.product,
            "domain": args.domain,
            "fallbackOrigin": args.fallback_origin,
            "paths": [
                {"pathPrefix": prefix, "appId": app_id, "preservePathPrefix": preserve}
                for preserve, paths in ((True, args.path), (False, args.path_stripped))
                for prefix, app_id in paths
            ],
        }
    )
    async with (
        create_pool(settings.database_url, settings.db_schema, 1, 1) as pool,
        transaction(pool) as cur,
    ):
        await check_product(cur, args.org, data["product_id"])
        return await create_legacy_domain(cur, EDGE_PROVIDERS[settings.edge_provider](), args.org, data)


async def run(argv: list[str], environ: Mapping[str, str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        domain = await legacy_domain(load_settings(environ), args)
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except ApiError as error:
        print(f"error: {error.message}", file=sys.stderr)
        if error.details is not None:
            print(dumps(error.details).decode(), file=sys.stderr)
        return 1
    print(dumps(domain).decode() if args.json else "\n".join(f"{name}: {value}" for name, value in domain.items()))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(run(sys.argv[1:])))

"""Operator commands of the search service, run with the service's own environment.

    python -m services.search.admin [--json] reindex --org ORG_ID

`reindex` rebuilds an organization's index from the content service (CONTENT_URL, which must be
running): every live document is read and stored again (re-embedded only where its text
changed), and documents the content service no longer has are taken out. Replicas pick the
result up on their next query. Use it after events were lost (a stream trimmed past a stopped
indexer, say) or to index an organization from scratch.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping

from libs.common.cli import OperatorParser, parse_uuid
from libs.common.clients import ContentClient
from libs.common.db import create_pool
from libs.common.encoding import dumps
from libs.common.errors import ApiError
from libs.common.http_client import internal_client
from libs.common.settings import SettingsError
from services.search.app import load_settings, shared_embedder
from services.search.indexer import Indexer


def parser() -> argparse.ArgumentParser:
    root = OperatorParser(prog="python -m services.search.admin", description="Search operator commands.")
    root.add_argument("--json", action="store_true", help="print one JSON object")
    commands = root.add_subparsers(dest="command", required=True)
    reindex = commands.add_parser("reindex", help="rebuild an organization's index from the content service")
    reindex.add_argument("--org", required=True, type=parse_uuid, help="the organization's id")
    return root


async def reindex(environ: Mapping[str, str] | None, organization_id: str) -> dict[str, object]:
    settings = load_settings(environ)
    async with (
        create_pool(settings.database_url, settings.db_schema, 1, 2) as pool,
        internal_client(settings.internal_token_secret) as http,
    ):
        content = ContentClient(http, settings.content_url)
        indexer = Indexer(pool, content, shared_embedder(), settings.indexing_threads)
        try:
            indexed, removed = await indexer.reindex(organization_id)
        finally:
            indexer.close()
    return {"organizationId": organization_id, "indexed": indexed, "removed": removed}


async def run(argv: list[str], environ: Mapping[str, str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        result = await reindex(environ, args.org)
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except ApiError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return 1
    print(dumps(result).decode() if args.json else "\n".join(f"{name}: {value}" for name, value in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(run(sys.argv[1:])))

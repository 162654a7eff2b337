"""`python -m gateway.admin`: organizations, products, users, memberships, API keys, tokens.

Reads DATABASE_URL (the gateway's role); to mint tokens, JWT_PRIVATE_KEY, JWT_ISSUER and
JWT_AUDIENCE; to open sessions, REDIS_URL — like the gateway. `--json` prints one JSON object for scripts. An API key's
secret is printed once, when it is created, and never again.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg2

from gateway import queries
from gateway.auth import key_changes
from gateway.auth.credentials import SESSION_COOKIE
from gateway.auth.passwords import check_new_password, hash_password
from gateway.auth.scopes import ROLE_SCOPES, parse_scopes
from gateway.auth.sessions import open_session
from gateway.auth.tokens import DEFAULT_TTL_SECONDS, TokenSigner
from libs.common.db import create_pool, transaction
from libs.common.encoding import dumps
from libs.common.errors import ApiError
from libs.common.redis_client import create_redis
from libs.common.settings import Env, SettingsError

Command = Callable[[Any, argparse.Namespace, Env], Awaitable[dict[str, Any]]]


async def create_org(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    return await queries.create_organization(cur, args.slug, args.name)


async def create_product(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    return await queries.create_product(cur, organization["id"], args.name, args.slug)


def read_password() -> str:
    """A password from standard input (its first line): never from the command line, where
    `ps` and shell history would show it."""
    password = getpass.getpass("Password: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\r\n")
    check_new_password(password)
    return password


async def create_user(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    password_hash = hash_password(read_password()) if args.password_stdin else None
    user = await queries.create_user(cur, args.email, args.name)
    if password_hash is not None:
        await queries.set_password_hash(cur, user["id"], password_hash)
    return {**user, "canSignIn": password_hash is not None}


async def set_password(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    user = await queries.get_user(cur, args.user)
    await queries.set_password_hash(cur, user["id"], hash_password(read_password()))
    return {**user, "canSignIn": True}


async def add_member(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    user = await queries.get_user(cur, args.user)
    return await queries.upsert_membership(cur, user["id"], organization["id"], args.role)


async def create_key(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    expires_at = datetime.now(UTC) + timedelta(days=args.expires_in_days) if args.expires_in_days else None
    key, row = await key_changes.create_key(
        cur, organization["id"], key_changes.OPERATOR, args.name, parse_scopes(args.scopes), expires_at
    )
    return {**row, "key": key}


async def list_keys(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    return {"keys": await queries.list_api_keys(cur, organization["id"])}


async def revoke_key(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    row = await queries.revoke_api_key(cur, args.key)
    await key_changes.record(cur, row, key_changes.OPERATOR, "revoked")
    return row


async def mint_token(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    user = await queries.get_user(cur, args.user)
    role = await queries.find_membership_role(cur, user["id"], organization["id"])
    if role is None:
        raise ApiError(f"{user['email']} is not a member of {organization['slug']}")
    scopes = ROLE_SCOPES[role] if args.scopes is None else parse_scopes(args.scopes)
    if not scopes <= ROLE_SCOPES[role]:
        raise ApiError(f"a {role} cannot hold: {', '.join(sorted(scopes - ROLE_SCOPES[role]))}")
    signer = TokenSigner(
        env.text("JWT_PRIVATE_KEY"), env.text("JWT_ISSUER", "aivis"), env.text("JWT_AUDIENCE", "aivis-api")
    )
    token = signer.mint(str(user["id"]), str(organization["id"]), scopes, args.ttl)
    return {"token": token, "userId": user["id"], "organizationId": organization["id"], "scopes": sorted(scopes),
            "expiresIn": args.ttl}  # fmt: skip


async def create_session(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    user = await queries.get_user(cur, args.user)
    if await queries.find_membership_role(cur, user["id"], organization["id"]) is None:
        raise ApiError(f"{user['email']} is not a member of {organization['slug']}")
    redis = create_redis(env.text("REDIS_URL", "redis://127.0.0.1:6379/0"))
    try:
        cookie = await open_session(redis, str(user["id"]), str(organization["id"]), args.max_age)
    finally:
        await redis.aclose()
    return {"cookie": f"{SESSION_COOKIE}={cookie}", "userId": user["id"], "organizationId": organization["id"],
            "expiresIn": args.max_age}  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gateway.admin", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, handler: Command, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text)
        sub.set_defaults(handler=handler)
        return sub

    sub = command("create-org", create_org, "create an organization")
    sub.add_argument("--slug", required=True)
    sub.add_argument("--name", required=True)
    sub = command("create-product", create_product, "create a product of an organization")
    sub.add_argument("--org", required=True, help="organization id or slug")
    sub.add_argument("--name", required=True)
    sub.add_argument("--slug", required=True)
    sub = command("create-user", create_user, "create a user")
    sub.add_argument("--email", required=True)
    sub.add_argument("--name", default="")
    sub.add_argument("--password-stdin", action="store_true", help="read a dashboard password from standard input")
    sub = command("set-password", set_password, "set a user's dashboard password (read from standard input)")
    sub.add_argument("--user", required=True, help="user id or email")
    sub = command("add-member", add_member, "make a user a member of an organization (or change the role)")
    sub.add_argument("--org", required=True, help="organization id or slug")
    sub.add_argument("--user", required=True, help="user id or email")
    sub.add_argument("--role", required=True, choices=sorted(ROLE_SCOPES))
    sub = command("create-key", create_key, "create an API key (its secret is printed once)")
    sub.add_argument("--org", required=True, help="organization id or slug")
    sub.add_argument("--name", required=True)
    sub.add_argument("--scopes", required=True, help='comma- or space-separated scopes, or "all"')
    sub.add_argument("--expires-in-days", type=int, default=None)
    sub = command("list-keys", list_keys, "list an organization's API keys (never their secrets)")
    sub.add_argument("--org", required=True, help="organization id or slug")
    sub = command("revoke-key", revoke_key, "revoke an API key")
    sub.add_argument("key", help="key id or prefix (avk_ and 8 characters)")
    sub = command("mint-token", mint_token, "mint a bearer token for a user in an organization")
    sub.add_argument("--user", required=True, help="user id or email")
    sub.add_argument("--org", required=True, help="organization id or slug")
    sub.add_argument("--scopes", default=None, help="default: everything the user's role allows")
    sub.add_argument("--ttl", type=int, default=DEFAULT_TTL_SECONDS, help="seconds")
    sub = command("create-session", create_session, "open a dashboard session (prints the cookie)")
    sub.add_argument("--user", required=True, help="user id or email")
    sub.add_argument("--org", required=True, help="organization id or slug")
    sub.add_argument("--max-age", type=int, default=3600, help="seconds")
    return parser


async def execute(args: argparse.Namespace, env: Env) -> dict[str, Any]:
    async with create_pool(env.text("DATABASE_URL"), "identity", 1, 1) as pool, transaction(pool) as cur:
        result: dict[str, Any] = await args.handler(cur, args, env)
        return result


def render_text(result: dict[str, Any]) -> str:
    lines = []
    for name, value in result.items():
        if isinstance(value, list):
            lines += [f"{name}:"] + [f"  - {dumps(item).decode()}" for item in value]
        else:
            lines.append(f"{name}: {value if not isinstance(value, list | dict) else dumps(value).decode()}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = asyncio.run(execute(args, Env()))
    except (ApiError, SettingsError, ValueError) as exc:
        print(f"error: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 1
    except psycopg2.OperationalError as exc:
        print(f"error: the database does not answer: {str(exc).strip()}", file=sys.stderr)
        return 1
    print(dumps(result).decode() if args.json else render_text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

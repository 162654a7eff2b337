"""`python -m gateway.admin`: organizations, products, users, memberships, API keys, tokens.

Reads DATABASE_URL (the gateway's role); to mint tokens, JWT_PRIVATE_KEY, PUBLIC_URL (the issuer)
and JWT_AUDIENCE; to open sessions, REDIS_URL — like the gateway. Results print as aligned tables;
`--json` prints one JSON object for scripts. An API key's secret is printed once, when it is
created, and never again. A mistake in the input (a malformed value, an unknown organization or
user, a taken slug) is one line on stderr and exit code 2; an unreachable database or Redis, or
missing settings, exit code 1.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import re
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg2
import redis

from gateway import product_queries, queries
from gateway.identity.auth import key_changes, key_queries
from gateway.identity.auth.api_keys import KEY_MARK, PREFIX_LENGTH
from gateway.identity.auth.passwords import PasswordRefused, check_new_password, hash_password
from gateway.identity.auth.scopes import ROLE_SCOPES, parse_scopes
from gateway.identity.auth.sessions import SESSION_COOKIE, open_session
from gateway.identity.auth.tokens import DEFAULT_TTL_SECONDS, TokenSigner
from gateway.settings import load_public_url, token_issuer
from libs.common.audit import AuditRecord, publish
from libs.common.cli import (
    OperatorParser,
    argument_type,
    bounded_int,
    bounded_text,
    parse_id_or_slug,
    parse_slug,
    parse_uuid,
    render,
)
from libs.common.db import create_pool, transaction
from libs.common.encoding import dumps
from libs.common.errors import ApiError
from libs.common.redis_client import create_redis
from libs.common.settings import Env, SettingsError

Command = Callable[[Any, argparse.Namespace, Env], Awaitable[dict[str, Any]]]

NAME_MAX = 200  # organizations, products and API keys (the identity schema's checks)
DAY_SECONDS = 86_400
MAX_EXPIRY_DAYS = 3650
MAX_LIFETIME_SECONDS = 30 * DAY_SECONDS  # sessions
# A minted bearer token cannot be refreshed, only revoked with its user's credentials (a password
# change): short by default, and never longer than a day.
MAX_TOKEN_TTL_SECONDS = DAY_SECONDS
_KEY_PREFIX = re.compile(rf"{KEY_MARK}[A-Za-z0-9]{{{PREFIX_LENGTH}}}")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")


def parse_email(text: str) -> str:
    if _EMAIL.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(f"not an email address: {text!r}")
    return text


def parse_user(text: str) -> str:
    """A user's id or email address."""
    if "@" in text:
        return parse_email(text)
    try:
        return parse_uuid(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"not a user id or email address: {text!r}") from None


def parse_key(text: str) -> str:
    """An API key's id or prefix."""
    if _KEY_PREFIX.fullmatch(text):
        return text
    try:
        return parse_uuid(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"not a key id or prefix ({KEY_MARK} and {PREFIX_LENGTH} letters or digits): {text!r}"
        ) from None


SCOPES = argument_type(parse_scopes)
NAME = bounded_text(1, NAME_MAX)


async def create_org(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    return await queries.create_organization(cur, args.slug, args.name)


async def create_product(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    return await product_queries.create_product(cur, organization["id"], args.name, args.slug)


async def delete_product(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    return await product_queries.delete_product(cur, organization["id"], args.product)


async def list_orgs(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    return {"organizations": await queries.list_organizations(cur)}


async def list_products(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    return {"products": await product_queries.list_organization_products(cur, organization["id"])}


async def list_users(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization_id = None if args.org is None else (await queries.get_organization(cur, args.org))["id"]
    return {"users": await queries.list_users(cur, organization_id)}


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
    await queries.change_password(cur, user["id"], hash_password(read_password()))
    return {**user, "canSignIn": True}


async def add_member(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    user = await queries.get_user(cur, args.user)
    return await queries.upsert_membership(cur, user["id"], organization["id"], args.role)


async def create_key(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    expires_at = None if args.expires_in_days is None else datetime.now(UTC) + timedelta(days=args.expires_in_days)
    key, row = await key_changes.create_key(
        cur, organization["id"], key_changes.OPERATOR, args.name, args.scopes, expires_at
    )
    return {**row, "key": key}


async def list_keys(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    return {"keys": await key_queries.list_api_keys(cur, organization["id"])}


async def revoke_key(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    row = await key_queries.revoke_api_key(cur, args.key)
    await key_changes.record(cur, row, key_changes.OPERATOR, "revoked")
    return row


async def mint_token(cur: Any, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    organization = await queries.get_organization(cur, args.org)
    user = await queries.get_user(cur, args.user)
    role = await queries.find_membership_role(cur, user["id"], organization["id"])
    if role is None:
        raise ApiError(f"{user['email']} is not a member of {organization['slug']}")
    scopes = ROLE_SCOPES[role] if args.scopes is None else args.scopes
    if not scopes <= ROLE_SCOPES[role]:
        raise ApiError(f"a {role} cannot hold: {', '.join(sorted(scopes - ROLE_SCOPES[role]))}")
    development = env.text("ENVIRONMENT", "production") == "development"
    issuer = token_issuer(load_public_url(env, development))
    signer = TokenSigner(env.text("JWT_PRIVATE_KEY"), issuer, env.text("JWT_AUDIENCE", "aivis-api"))
    token = signer.mint(str(user["id"]), str(organization["id"]), scopes, args.ttl)
    return {
        "token": token,
        "userId": user["id"],
        "organizationId": organization["id"],
        "scopes": sorted(scopes),
        "expiresIn": args.ttl,
    }


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
    return {
        "cookie": f"{SESSION_COOKIE}={cookie}",
        "userId": user["id"],
        "organizationId": organization["id"],
        "expiresIn": args.max_age,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = OperatorParser(prog="python -m gateway.admin", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, handler: Command, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text)
        sub.set_defaults(handler=handler)
        return sub

    def org_option(sub: argparse.ArgumentParser, required: bool = True) -> None:
        sub.add_argument("--org", required=required, type=parse_id_or_slug, help="organization id or slug")

    def user_option(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--user", required=True, type=parse_user, help="user id or email")

    sub = command("create-org", create_org, "create an organization")
    sub.add_argument("--slug", required=True, type=parse_slug)
    sub.add_argument("--name", required=True, type=NAME)
    command("list-orgs", list_orgs, "list the organizations")
    sub = command("create-product", create_product, "create a product of an organization")
    org_option(sub)
    sub.add_argument("--name", required=True, type=NAME)
    sub.add_argument("--slug", required=True, type=parse_slug)
    sub = command("delete-product", delete_product, "delete a product of an organization (soft: the row stays)")
    org_option(sub)
    sub.add_argument("--product", required=True, type=parse_id_or_slug, help="product id or slug")
    sub = command("list-products", list_products, "list an organization's products")
    org_option(sub)
    sub = command("create-user", create_user, "create a user")
    sub.add_argument("--email", required=True, type=parse_email)
    sub.add_argument("--name", default="")
    sub.add_argument("--password-stdin", action="store_true", help="read a dashboard password from standard input")
    sub = command("set-password", set_password, "set a user's dashboard password (read from standard input)")
    user_option(sub)
    sub = command("list-users", list_users, "list the users, or an organization's members and their roles")
    org_option(sub, required=False)
    sub = command("add-member", add_member, "make a user a member of an organization (or change the role)")
    org_option(sub)
    user_option(sub)
    sub.add_argument("--role", required=True, choices=sorted(ROLE_SCOPES))
    sub = command("create-key", create_key, "create an API key (its secret is printed once)")
    org_option(sub)
    sub.add_argument("--name", required=True, type=NAME)
    sub.add_argument("--scopes", required=True, type=SCOPES, help='comma- or space-separated scopes, or "all"')
    sub.add_argument("--expires-in-days", type=bounded_int(1, MAX_EXPIRY_DAYS), default=None, help="default: never")
    sub = command("list-keys", list_keys, "list an organization's API keys (never their secrets)")
    org_option(sub)
    sub = command("revoke-key", revoke_key, "revoke an API key")
    sub.add_argument("key", type=parse_key, help=f"key id or prefix ({KEY_MARK} and {PREFIX_LENGTH} characters)")
    sub = command("mint-token", mint_token, "mint a bearer token for a user in an organization")
    user_option(sub)
    org_option(sub)
    sub.add_argument("--scopes", default=None, type=SCOPES, help="default: everything the user's role allows")
    sub.add_argument(
        "--ttl",
        type=bounded_int(1, MAX_TOKEN_TTL_SECONDS),
        default=DEFAULT_TTL_SECONDS,
        help=f"seconds (default {DEFAULT_TTL_SECONDS}, at most {MAX_TOKEN_TTL_SECONDS})",
    )
    sub = command("create-session", create_session, "open a dashboard session (prints the cookie)")
    user_option(sub)
    org_option(sub)
    sub.add_argument("--max-age", type=bounded_int(1, MAX_LIFETIME_SECONDS), default=3600, help="seconds")
    return parser


# Commands that change nothing, and so leave no audit record.
READ_ONLY = frozenset({"list_orgs", "list_products", "list_users", "list_keys"})


async def execute(args: argparse.Namespace, env: Env) -> dict[str, Any]:
    async with create_pool(env.text("DATABASE_URL"), "identity", 1, 1) as pool:
        async with transaction(pool) as cur:
            result: dict[str, Any] = await args.handler(cur, args, env)
        if args.handler.__name__ not in READ_ONLY:
            await audit_command(pool, args, env, result)
        return result


async def audit_command(pool: Any, args: argparse.Namespace, env: Env, result: dict[str, Any]) -> None:
    """Record a change an operator made in the organization's audit trail (libs/common/audit.py)."""
    organization_id = None
    if getattr(args, "org", None):
        async with transaction(pool) as cur:
            organization = await queries.find_organization(cur, args.org)
        organization_id = str(organization["id"]) if organization is not None else None
    record = AuditRecord(
        organization_id=organization_id or (str(result["id"]) if args.handler is create_org else None),
        actor_kind="operator",
        actor_id=None,
        actor_label=f"operator ({getpass.getuser()})",
        action="operator." + args.handler.__name__,
        result="success",
        resource_type=args.handler.__name__.partition("_")[2],
        resource_id=str(result["id"]) if "id" in result else None,
    )
    client = create_redis(env.text("REDIS_URL", "redis://127.0.0.1:6379/0"))
    try:
        await publish(client, env.text("REDIS_PREFIX", "aivis:"), record)
    finally:
        await client.aclose()


def one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = asyncio.run(execute(args, Env()))
    except ApiError as exc:
        # What the operator asked for does not fit the data: an unknown organization, a taken slug.
        parser.error(exc.message)
    except PasswordRefused as exc:
        parser.error(str(exc))
    except (psycopg2.DataError, psycopg2.IntegrityError) as exc:
        parser.error(f"the database refused the input: {one_line(exc)}")
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except psycopg2.OperationalError as exc:
        print(f"error: the database does not answer: {one_line(exc)}", file=sys.stderr)
        return 1
    except redis.ConnectionError as exc:
        print(f"error: Redis does not answer: {one_line(exc)}", file=sys.stderr)
        return 1
    print(dumps(result).decode() if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

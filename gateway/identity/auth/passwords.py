"""Passwords, hashed with argon2id (argon2-cffi, RFC 9106's parameters as the library sets them).

Verification runs in a worker thread: one check costs tens of milliseconds of CPU and 64 MiB,
which must not stall the event loop. An unknown account is checked against a dummy hash, so a
wrong email and a wrong password take the same time.
"""

from __future__ import annotations

import asyncio
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_PASSWORD_LENGTH = 10
# argon2 would hash a megabyte happily; a sign-in form has no reason to send one.
MAX_PASSWORD_LENGTH = 256

_HASHER = PasswordHasher()


class PasswordRefused(ValueError):
    """A new password that does not meet the rules."""


def check_new_password(password: str) -> str:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise PasswordRefused(f"a password needs at least {MIN_PASSWORD_LENGTH} characters")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise PasswordRefused(f"a password has at most {MAX_PASSWORD_LENGTH} characters")
    return password


def hash_password(password: str) -> str:
    return _HASHER.hash(check_new_password(password))


@cache
def _dummy_hash() -> str:
    return _HASHER.hash("not a password of anyone")


def _verify(stored: str | None, password: str) -> bool:
    if len(password) > MAX_PASSWORD_LENGTH:
        return False
    try:
        return _HASHER.verify(stored or _dummy_hash(), password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` matches `stored` (None: no such account, or no password set)."""
    return await asyncio.to_thread(_verify, stored, password)


async def upgraded_hash(stored: str, password: str) -> str | None:
    """A new hash of a password that just matched `stored`, when `stored` was made with older
    parameters than the current ones; else None."""
    if not _HASHER.check_needs_rehash(stored):
        return None
    return await asyncio.to_thread(_HASHER.hash, password)

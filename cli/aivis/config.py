"""Profiles and their credentials, kept in the user's config directory.

`$AIVIS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/aivis`, else `~/.config/aivis` (click's
`get_app_dir`, which follows XDG). The file holds refresh tokens, so it is created 0600 in a
0700 directory and replaced atomically. Refreshing is done under an exclusive lock on a
sibling file, so two commands running at once never spend the same refresh token (which the
server would take as theft and answer by revoking the sign-in).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

APP_NAME = "aivis"
CREDENTIALS_FILE = "credentials.json"
DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_PROFILE = "default"


def config_dir() -> Path:
    override = os.environ.get("AIVIS_CONFIG_DIR")
    return Path(override) if override else Path(click.get_app_dir(APP_NAME))


def credentials_path() -> Path:
    return config_dir() / CREDENTIALS_FILE


def _read_all() -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(credentials_path().read_text())
    except FileNotFoundError:
        return {"profiles": {}}
    return data


def _write_all(data: dict[str, Any]) -> None:
    directory = config_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = directory / f".{CREDENTIALS_FILE}.{os.getpid()}"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(data, file, indent=2, sort_keys=True)
    os.replace(temporary, credentials_path())


def load_profile(name: str) -> dict[str, Any] | None:
    profile: dict[str, Any] | None = _read_all()["profiles"].get(name)
    return profile


def profiles() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = _read_all()["profiles"]
    return found


def current_profile() -> str:
    """The profile commands use without --profile: the one `aivis profiles use` chose."""
    return str(_read_all().get("current") or DEFAULT_PROFILE)


def use_profile(name: str) -> None:
    data = _read_all()
    data["current"] = name
    _write_all(data)


def save_profile(name: str, profile: dict[str, Any]) -> None:
    data = _read_all()
    data["profiles"][name] = profile
    _write_all(data)


def delete_profile(name: str) -> bool:
    data = _read_all()
    if data["profiles"].pop(name, None) is None:
        return False
    _write_all(data)
    return True


@contextlib.contextmanager
def locked() -> Iterator[None]:
    """Exclusive use of the credentials across processes, for read-refresh-write."""
    directory = config_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(directory / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)

"""The internal token's round trip and defects; settings that refuse to boot without their values."""

from __future__ import annotations

import time

import jwt
import pytest

from deploy.parts import PERSONAS
from libs.common.errors import Unauthorized
from libs.common.internal_token import Caller, Organization, Product, mint, verify
from libs.common.settings import Env, ServiceSettings, SettingsError

SECRET = "k" * 48
CALLER = Caller(
    principal_kind="api_key",
    principal_id="key-1",
    organization=Organization("o-1", "acme", "Acme"),
    scopes=frozenset({"content:read"}),
    product=Product("p-1", "Widget", "widget"),
    request_id="r-1",
)


def test_a_token_carries_the_whole_caller():
    assert verify(SECRET, mint(SECRET, CALLER)) == CALLER


@pytest.mark.parametrize(
    "token",
    [
        mint("x" * 48, CALLER),
        mint(SECRET, CALLER, now=time.time() - 61),
        jwt.encode({"sub": "s", "kind": "api_key", "iat": 0, "exp": 2**31}, SECRET, algorithm="HS256"),
        jwt.encode({"iss": "aivis-internal", "aud": "aivis-services", "sub": "s", "kind": "root",
                    "iat": int(time.time()), "exp": int(time.time()) + 60}, SECRET, algorithm="HS256"),
        "not.a.token",
    ],
)  # fmt: skip
def test_defective_tokens_are_refused(token):
    with pytest.raises(Unauthorized, match="invalid internal token"):
        verify(SECRET, token)


def test_a_service_needs_every_required_setting():
    with pytest.raises(SettingsError, match="DATABASE_URL is required"):
        ServiceSettings.load(PERSONAS, {"INTERNAL_TOKEN_SECRET": SECRET})
    with pytest.raises(SettingsError, match="INTERNAL_TOKEN_SECRET is required"):
        ServiceSettings.load(PERSONAS, {"DATABASE_URL": "postgresql://x"})


def test_short_secrets_and_bad_numbers_are_refused():
    with pytest.raises(SettingsError, match="at least 32 characters"):
        Env({"S": "short"}).secret("S")
    with pytest.raises(SettingsError, match="must be an integer"):
        Env({"N": "ten"}).integer("N")
    with pytest.raises(SettingsError, match="must be at least 1"):
        Env({"N": "0"}).integer("N", minimum=1)


def test_defaults_apply_only_when_unset_or_empty():
    env = Env({"A": "", "B": "7"})
    assert (env.integer("A", 3), env.integer("B", 3), env.text("C", "c")) == (3, 7, "c")

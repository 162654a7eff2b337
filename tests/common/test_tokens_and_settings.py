"""The internal token's round trip and defects; settings that refuse to boot without their values."""

from __future__ import annotations

import time
from dataclasses import replace

import jwt
import pytest

from libs.common.errors import Unauthorized
from libs.common.internal_token import (
    REUSE_SECONDS,
    TTL_SECONDS,
    Caller,
    Minter,
    Organization,
    Product,
    Verifier,
    mint,
    verify,
)
from libs.common.settings import Env, ServiceSettings, SettingsError
from libs.contract.parts import PERSONAS

SECRET = "k" * 48
CALLER = Caller(
    principal_kind="api_key",
    principal_id="key-1",
    organization=Organization("o-1", "acme", "Acme"),
    scopes=frozenset({"content:read"}),
    product=Product("p-1", "Widget", "widget"),
    request_id="r-1",
)


def test_a_token_carries_the_whole_caller_but_the_request_id():
    # The request id travels in X-Request-Id, so one caller's token serves many requests.
    assert verify(SECRET, mint(SECRET, CALLER)) == replace(CALLER, request_id=None)


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def test_a_minter_reuses_a_callers_token_for_a_few_seconds_only():
    clock = Clock()
    minter = Minter(SECRET, clock)
    first = minter.token(CALLER)
    assert minter.token(replace(CALLER, request_id="r-2")) == first
    other_product = minter.token(replace(CALLER, product=Product("p-2", "Gadget", "gadget")))
    assert verify(SECRET, other_product).product == Product("p-2", "Gadget", "gadget")
    clock.now += REUSE_SECONDS
    renewed = minter.token(CALLER)
    assert renewed != first
    assert jwt.decode(renewed, options={"verify_signature": False})["iat"] == int(clock.now)


def test_a_verifier_remembers_a_token_until_it_expires_and_never_a_defective_one():
    verifier = Verifier(SECRET)
    token = mint(SECRET, CALLER, now=time.time() - TTL_SECONDS + 2)
    assert verifier.caller(token) == replace(CALLER, request_id=None)
    assert verifier.caller(token) == replace(CALLER, request_id=None)
    expires = jwt.decode(token, options={"verify_signature": False})["exp"]
    time.sleep(max(0.0, expires - time.time()) + 0.05)
    with pytest.raises(Unauthorized, match="invalid internal token"):
        verifier.caller(token)
    forged = mint("x" * 48, CALLER)
    for _ in range(2):
        with pytest.raises(Unauthorized, match="invalid internal token"):
            verifier.caller(forged)


@pytest.mark.parametrize(
    "token",
    [
        mint("x" * 48, CALLER),
        mint(SECRET, CALLER, now=time.time() - 61),
        jwt.encode({"sub": "s", "kind": "api_key", "iat": 0, "exp": 2**31}, SECRET, algorithm="HS256"),
        jwt.encode(
            {
                "iss": "aivis-internal",
                "aud": "aivis-services",
                "sub": "s",
                "kind": "root",
                "iat": int(time.time()),
                "exp": int(time.time()) + 60,
            },
            SECRET,
            algorithm="HS256",
        ),
        "not.a.token",
    ],
)
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


def test_the_overlap_secret_is_optional_but_as_strict_as_the_secret():
    base = {"DATABASE_URL": "postgresql://x", "INTERNAL_TOKEN_SECRET": SECRET}
    assert ServiceSettings.load(PERSONAS, base).internal_secrets_also_accepted == ()
    with pytest.raises(SettingsError, match="INTERNAL_TOKEN_OVERLAP_SECRET must be at least 32"):
        ServiceSettings.load(PERSONAS, {**base, "INTERNAL_TOKEN_OVERLAP_SECRET": "short"})
    other = "o" * 48
    settings = ServiceSettings.load(PERSONAS, {**base, "INTERNAL_TOKEN_OVERLAP_SECRET": other})
    assert settings.internal_secrets_also_accepted == (other,)
    assert verify(SECRET, mint(other, CALLER), *settings.internal_secrets_also_accepted) == replace(
        CALLER, request_id=None
    )
    with pytest.raises(Unauthorized):
        verify(SECRET, mint("z" * 48, CALLER), other)

"""Gateway settings, from the environment only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from libs.common.client_address import Network, parse_trusted_proxies
from libs.common.settings import Env, ServiceSettings, SettingsError, common_fields
from libs.contract.parts import SERVICES, Part

# The bearer tokens' issuer in local development when PUBLIC_URL is unset (never elsewhere).
DEVELOPMENT_ISSUER = "aivis"


@dataclass(frozen=True)
class GatewaySettings(ServiceSettings):
    # Ed25519 private key (PEM) that signs bearer tokens; its public half is served as a JWKS.
    jwt_private_key: str
    # Public keys (PEM, one after another) that still verify bearer tokens while the signing key
    # is rotated (docs/operations.md#rotating-the-jwt-signing-key); served in the JWKS too.
    jwt_verify_keys: str
    jwt_audience: str
    # Local development serves plain HTTP, so the session cookie cannot be Secure there.
    development: bool
    session_max_age: int
    upstreams: Mapping[str, str]
    # The search replicas, to route by organization (gateway/edge/replicas.py); empty: SEARCH_URL.
    search_replicas: str
    max_body_bytes: int
    # How long a request body may take to arrive, from the end of its headers (408 after).
    body_timeout_seconds: int
    rate_limit_per_minute: int
    rate_limit_burst: int
    # Refused credentials allowed per client address (gateway/identity/auth/failures.py).
    failed_credentials_per_minute: int
    failed_credentials_burst: int
    # Where people reach the gateway: the OAuth issuer (metadata and the JWTs' `iss`) and every
    # link it gives. Required outside development; empty there means each request's own origin.
    public_url: str
    # Proxies whose X-Forwarded-For is believed (libs/common/client_address.py).
    trusted_proxies: tuple[Network, ...]
    # Failed dashboard sign-ins allowed within the window: per account from one address, per
    # address, and per account over all addresses (never refusing an address that has not failed).
    sign_in_failures_per_account_and_address: int
    sign_in_failures_per_address: int
    sign_in_failures_per_account: int
    sign_in_failure_window: int
    # Past this many failures of one account in the window, its sign-ins from addresses it never
    # signed in from go one at a time, DELAY seconds apart (doubling every 10 failures).
    sign_in_slow_down_after: int
    sign_in_slow_down_seconds: float
    # Dashboard requests of visitors who are not signed in, per client address (a token bucket).
    visitor_requests_per_minute: int
    visitor_requests_burst: int
    # The device flow: codes issued per address, and user codes that match nothing per account
    # and per address, within DEVICE_FLOW_WINDOW_SECONDS.
    device_codes_per_address: int
    user_code_misses_per_account: int
    user_code_misses_per_address: int
    device_flow_window: int
    # How often a device may poll for its token (RFC 8628's `interval`; 5 s unless set).
    device_poll_interval: int
    # Development and tests only: how far ahead of the real time this gateway's clock runs, so
    # a test can see a grace period end without waiting for it.
    clock_offset_seconds: int

    @property
    def issuer(self) -> str:
        """The bearer tokens' `iss` and the OAuth metadata's `issuer`: one value."""
        return token_issuer(self.public_url)

    @classmethod
    def load(cls, part: Part, environ: Mapping[str, str] | None = None) -> GatewaySettings:
        env = Env(environ)
        development = env.text("ENVIRONMENT", "production") == "development"
        clock_offset = env.integer("CLOCK_OFFSET_SECONDS", 0, minimum=0)
        if clock_offset and not development:
            raise SettingsError("CLOCK_OFFSET_SECONDS is for ENVIRONMENT=development only")
        public_url = load_public_url(env, development)
        return cls(
            **common_fields(part, env),
            jwt_private_key=env.text("JWT_PRIVATE_KEY"),
            jwt_verify_keys=env.text("JWT_VERIFY_KEYS", ""),
            jwt_audience=env.text("JWT_AUDIENCE", "aivis-api"),
            development=development,
            session_max_age=env.integer("SESSION_MAX_AGE_SECONDS", 7 * 24 * 3600, minimum=60),
            upstreams={service.name: env.part_url(service.name) for service in SERVICES},
            search_replicas=env.text("SEARCH_REPLICAS", ""),
            max_body_bytes=env.integer("MAX_BODY_BYTES", 1024 * 1024, minimum=1024),
            body_timeout_seconds=env.integer("BODY_TIMEOUT_SECONDS", 10, minimum=1),
            rate_limit_per_minute=env.integer("RATE_LIMIT_PER_MINUTE", 600, minimum=1),
            rate_limit_burst=env.integer("RATE_LIMIT_BURST", 100, minimum=1),
            failed_credentials_per_minute=env.integer("FAILED_CREDENTIALS_PER_MINUTE", 60, minimum=1),
            failed_credentials_burst=env.integer("FAILED_CREDENTIALS_BURST", 30, minimum=1),
            visitor_requests_per_minute=env.integer("VISITOR_REQUESTS_PER_MINUTE", 120, minimum=1),
            visitor_requests_burst=env.integer("VISITOR_REQUESTS_BURST", 60, minimum=1),
            public_url=public_url,
            trusted_proxies=parse_trusted_proxies(env.text("TRUSTED_PROXIES", "")),
            sign_in_failures_per_account_and_address=env.integer(
                "SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS", 5, minimum=1
            ),
            sign_in_failures_per_address=env.integer("SIGN_IN_FAILURES_PER_ADDRESS", 30, minimum=1),
            sign_in_failures_per_account=env.integer("SIGN_IN_FAILURES_PER_ACCOUNT", 100, minimum=1),
            sign_in_failure_window=env.integer("SIGN_IN_FAILURE_WINDOW_SECONDS", 15 * 60, minimum=1),
            sign_in_slow_down_after=env.integer("SIGN_IN_SLOW_DOWN_AFTER", 10, minimum=1),
            sign_in_slow_down_seconds=env.integer("SIGN_IN_SLOW_DOWN_MILLISECONDS", 1000, minimum=1) / 1000,
            device_codes_per_address=env.integer("DEVICE_CODES_PER_ADDRESS", 20, minimum=1),
            user_code_misses_per_account=env.integer("USER_CODE_MISSES_PER_ACCOUNT", 10, minimum=1),
            user_code_misses_per_address=env.integer("USER_CODE_MISSES_PER_ADDRESS", 30, minimum=1),
            device_flow_window=env.integer("DEVICE_FLOW_WINDOW_SECONDS", 15 * 60, minimum=1),
            device_poll_interval=env.integer("DEVICE_POLL_INTERVAL_SECONDS", 5, minimum=1),
            clock_offset_seconds=clock_offset,
        )


def load_public_url(env: Env, development: bool) -> str:
    """PUBLIC_URL, an http(s) origin without a trailing slash; required outside development."""
    url = env.text("PUBLIC_URL", "").rstrip("/")
    if not url and not development:
        raise SettingsError(
            "environment variable PUBLIC_URL is required outside ENVIRONMENT=development:"
            " where people reach the gateway, such as https://api.example.com"
        )
    if url:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise SettingsError(f"PUBLIC_URL must be an http(s) URL such as https://api.example.com, not {url!r}")
    return url


def token_issuer(public_url: str) -> str:
    """The issuer for a gateway reached at `public_url` (empty only in development)."""
    return public_url or DEVELOPMENT_ISSUER

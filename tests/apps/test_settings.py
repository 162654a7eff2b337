"""The apps service's settings and its edge provider."""

from __future__ import annotations

import pytest

from libs.common.settings import SettingsError
from services.apps.app import load_settings
from services.apps.edge import LocalEdgeProvider

REQUIRED = {"DATABASE_URL": "postgresql://localhost/x", "INTERNAL_TOKEN_SECRET": "s" * 40}


def test_service_addresses_come_from_the_environment():
    """The gateway's address is read only for the product changes a lost stream missed (catch-up)."""
    environ = {**REQUIRED, "CONTENT_URL": "http://content:9000/", "GATEWAY_URL": "http://gw:80/", "REDIS_PREFIX": "t:"}
    settings = load_settings(environ)
    assert (settings.content_url, settings.gateway_url, settings.edge_provider, settings.events_stream) == (
        "http://content:9000",
        "http://gw:80",
        "local",
        "t:events:identity",
    )


def test_an_unknown_edge_provider_stops_the_boot():
    with pytest.raises(SettingsError, match="EDGE_PROVIDER must be one of local"):
        load_settings({**REQUIRED, "EDGE_PROVIDER": "somecdn"})


def test_domain_verification_settings_have_defaults_and_are_checked():
    settings = load_settings(REQUIRED)
    assert (settings.dns_nameservers, settings.dns_port, settings.dns_timeout_seconds) == ((), 53, 5)
    assert (settings.domain_claim_days, settings.domain_sweep_seconds) == (7, 60)
    chosen = load_settings({**REQUIRED, "DNS_NAMESERVERS": "10.0.0.2, ::1", "DOMAIN_CLAIM_DAYS": "3"})
    assert (chosen.dns_nameservers, chosen.domain_claim_days) == (("10.0.0.2", "::1"), 3)
    with pytest.raises(SettingsError, match="DNS_NAMESERVERS must list IP addresses, got 'dns.example.com'"):
        load_settings({**REQUIRED, "DNS_NAMESERVERS": "dns.example.com"})
    with pytest.raises(SettingsError, match="DOMAIN_CLAIM_DAYS must be at least 1"):
        load_settings({**REQUIRED, "DOMAIN_CLAIM_DAYS": "0"})


async def test_the_local_edge_provider_gives_a_stable_id_per_hostname():
    provider = LocalEdgeProvider()
    first = await provider.register("docs.example.com")
    assert first == await LocalEdgeProvider().register("docs.example.com")
    assert first != await provider.register("blog.example.com")
    assert first.startswith("local-")


def test_the_restore_window_and_purge_interval_come_from_the_environment():
    assert (load_settings(REQUIRED).restore_days, load_settings(REQUIRED).purge_interval_seconds) == (30, 3600)
    settings = load_settings({**REQUIRED, "APPS_RESTORE_DAYS": "7", "APPS_PURGE_INTERVAL_SECONDS": "60"})
    assert (settings.restore_days, settings.purge_interval_seconds) == (7, 60)
    with pytest.raises(SettingsError, match="APPS_RESTORE_DAYS must be at least 1"):
        load_settings({**REQUIRED, "APPS_RESTORE_DAYS": "0"})

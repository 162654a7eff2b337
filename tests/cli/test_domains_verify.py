"""`aivis domains verify APP DOMAIN`: the domain named by hostname or id, verified or why not."""

from __future__ import annotations

import json

from tests.cli.conftest import Aivis, FakeApi, error, ok

APP_ID = "5a5a5a5a-1111-4222-8333-444455556666"
DOMAIN_ID = "d0d0d0d0-1111-4222-8333-444455556666"
HOSTNAME = "docs.example.com"
RECORD = {"type": "TXT", "name": f"_aivis-challenge.{HOSTNAME}", "value": "f" * 64}
VERIFY = f"/api/v1/apps/{APP_ID}/domains/{DOMAIN_ID}/verify"


def domain(**fields: object) -> dict:
    return {
        "id": DOMAIN_ID,
        "domain": HOSTNAME,
        "appId": APP_ID,
        "verified": False,
        "verifiedAt": None,
        "verification": [RECORD],
        "verificationError": None,
        "expiresAt": "2026-12-03T10:00:00+00:00",
        "releasedAt": None,
        **fields,
    }


def test_a_hostname_is_looked_up_among_the_apps_domains_and_verified(run: Aivis, api: FakeApi):
    api.on(
        "GET",
        f"/api/v1/apps/{APP_ID}/domains",
        ok([domain(id="aaaa0000-1111-4222-8333-444455556666", domain="other.example.com"), domain()]),
    )
    verified = domain(verified=True, verifiedAt="2026-11-26T10:00:00+00:00", expiresAt=None)
    api.on("POST", VERIFY, ok(verified))
    result = run("domains", "verify", APP_ID, HOSTNAME, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == verified
    assert [(r.method, r.url.path) for r in api.requests][-1] == ("POST", VERIFY)


def test_a_failed_check_prints_the_record_and_why_and_exits_8_as_the_help_says(run: Aivis, api: FakeApi):
    failed = domain(verificationError={"code": "NO_RECORD", "message": f"No TXT record at {RECORD['name']}."})
    api.on("POST", VERIFY, ok(failed))
    result = run("domains", "verify", APP_ID, DOMAIN_ID)
    assert result.exit_code == 8
    assert f"verification\t{json.dumps([RECORD])}" in result.stdout
    assert "verificationError.code\tNO_RECORD" in result.stdout
    assert result.stderr == f"error: {HOSTNAME} is not verified: NO_RECORD: No TXT record at {RECORD['name']}.\n"
    assert "Exits 0 when verified; 8, saying why, when not." in " ".join(
        run("domains", "verify", "--help").stdout.split()
    )
    assert "8 a domain not verified" in " ".join(run("--help").stdout.split())


def test_a_short_id_names_the_domain(run: Aivis, api: FakeApi):
    api.on("GET", f"/api/v1/apps/{APP_ID}/domains", ok([domain()]))
    api.on("POST", VERIFY, ok(domain(verified=True)))
    result = run("domains", "verify", APP_ID, "d0d0d0d0")
    assert result.exit_code == 0, result.output
    unknown = run("domains", "verify", APP_ID, "nothing.example.com")
    assert (unknown.exit_code, unknown.stderr) == (4, "error: no domain 'nothing.example.com'\n")


def test_a_released_domain_is_a_conflict(run: Aivis, api: FakeApi):
    api.on("POST", VERIFY, error(409, "CONFLICT", f"the domain {HOSTNAME} was released"))
    result = run("domains", "verify", APP_ID, DOMAIN_ID)
    assert (result.exit_code, result.stderr) == (6, f"error: CONFLICT: the domain {HOSTNAME} was released\n")

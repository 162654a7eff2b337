"""Every write the command line sends carries a fresh Idempotency-Key, the same on its own retries."""

from __future__ import annotations

import httpx2 as httpx

from tests.cli.conftest import Aivis, FakeApi, error, ok

APPS = "/api/v1/apps"
APP = {
    "id": "5a5a5a5a-1111-4222-8333-444455556666",
    "name": "Docs",
    "slug": "docs",
    "organizationId": "o",
    "metadata": {},
    "createdAt": "2026-11-26T00:00:00Z",
    "updatedAt": "2026-11-26T00:00:00Z",
    "deletedAt": None,
    "appConfig": None,
}


def keys_sent(api: FakeApi, method: str, path: str) -> list[str | None]:
    return [r.headers.get("Idempotency-Key") for r in api.requests if (r.method, r.url.path) == (method, path)]


def test_each_write_sends_a_fresh_key(run: Aivis, api: FakeApi):
    api.on("POST", APPS, ok(APP, 201))
    assert run("apps", "create", "--name", "Docs").exit_code == 0
    assert run("apps", "create", "--name", "Docs").exit_code == 0
    first, second = keys_sent(api, "POST", APPS)
    assert first and second and first != second and 1 <= len(first) <= 255


def test_reads_send_no_key(run: Aivis, api: FakeApi):
    api.on("GET", APPS, ok([APP]))
    assert run("apps", "list").exit_code == 0
    assert keys_sent(api, "GET", APPS) == [None]


def test_a_retry_after_a_lost_answer_or_a_busy_key_reuses_the_key(run: Aivis, api: FakeApi):
    def dropped(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("the answer never came", request=request)

    busy = error(409, "IDEMPOTENCY_IN_PROGRESS", "the first request with this key is still running")
    api.on("POST", APPS, dropped, busy, ok(APP, 201))
    result = run("apps", "create", "--name", "Docs")
    assert result.exit_code == 0, result.output
    sent = keys_sent(api, "POST", APPS)
    assert len(sent) == 3 and len(set(sent)) == 1 and sent[0]


def test_a_plain_conflict_is_not_retried(run: Aivis, api: FakeApi):
    api.on("POST", APPS, error(409, "CONFLICT", "an app with the slug 'docs' already exists"))
    result = run("apps", "create", "--name", "Docs")
    assert result.exit_code != 0 and "already exists" in result.stderr
    assert len(keys_sent(api, "POST", APPS)) == 1


def test_a_server_that_stays_unavailable_is_tried_three_times(run: Aivis, api: FakeApi):
    api.on("POST", APPS, error(503, "SERVICE_UNAVAILABLE", "service unavailable"))
    result = run("apps", "create", "--name", "Docs")
    assert result.exit_code != 0 and "SERVICE_UNAVAILABLE" in result.stderr
    sent = keys_sent(api, "POST", APPS)
    assert len(sent) == 3 and len(set(sent)) == 1

"""The gateway and the services as real processes, called over HTTP as a client would."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from libs.contract.parts import EDGE, GATEWAY
from tests.e2e.conftest import LiveStack


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict, dict]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def page_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_runs_through_the_gateway_with_an_api_key(live_stack: LiveStack):
    status, _, body = get(
        f"{live_stack.gateway}/api/v1/agent-simulation/runs?limit=5", {"x-api-key": live_stack.api_key}
    )
    assert status == 200
    assert body["ok"] is True
    assert body["data"]["total"] == 12
    assert [run["metadata"]["index"] for run in body["data"]["runs"]] == [11, 10, 9, 8, 7]


def test_every_part_is_ready(live_stack: LiveStack):
    for name, url in live_stack.urls.items():
        status, _, body = get(f"{url}/readyz")
        assert (name, status, body["status"]) == (name, 200, "ready")


def test_a_service_is_not_reachable_without_the_internal_token(live_stack: LiveStack):
    status, _, body = get(f"{live_stack.urls['simulations']}/api/v1/agent-simulation/runs")
    assert (status, body["code"]) == (401, "UNAUTHORIZED")


def test_errors_are_envelopes_end_to_end(live_stack: LiveStack):
    status, headers, body = get(f"{live_stack.gateway}/api/v1/agent-simulation/runs", {"x-api-key": "avk_nope"})
    assert status == 401
    assert body == {"ok": False, "code": "UNAUTHORIZED", "message": "invalid api key"}
    assert headers["Content-Type"].startswith("application/json")


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_metrics_aggregate_every_worker(live_stack: LiveStack):
    for _ in range(4):
        get(f"{live_stack.gateway}/api/v1/agent-simulation/runs", {"x-api-key": live_stack.api_key})
    text = scrape(live_stack.metrics["gateway"])
    lines = [
        line
        for line in text.splitlines()
        if line.startswith("http_requests_total{") and 'status="200"' in line and "agent-simulation" in line
    ]
    assert lines and sum(float(line.split()[-1]) for line in lines) >= 4


def test_metrics_are_served_on_their_own_port_only(live_stack: LiveStack):
    for name, url in live_stack.urls.items():
        # The edge answers a page for people, not JSON: only its status is read.
        status = page_status(f"{url}/metrics") if name == EDGE.name else get(f"{url}/metrics")[0]
        assert (name, status) == (name, 404)
        text = scrape(live_stack.metrics[name])
        assert "# TYPE http_requests_total counter" in text, name
    assert get(f"{live_stack.gateway}/metrics")[2] == {"ok": False, "code": "NOT_FOUND", "message": "no such route"}


def test_process_figures_cover_the_master_and_every_worker(live_stack: LiveStack):
    samples = dict(
        line.rsplit(" ", 1)
        for line in scrape(live_stack.metrics["gateway"]).splitlines()
        if line.startswith("process_")
    )
    assert float(samples["process_workers"]) == GATEWAY.workers
    assert float(samples["process_resident_memory_bytes"]) > 10_000_000
    assert float(samples["process_open_fds"]) > 3
    assert float(samples["process_cpu_seconds_total"]) > 0

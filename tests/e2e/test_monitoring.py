"""The alert rules and the Grafana dashboard name only metrics the running parts expose
(tests/deploy/test_alert_rules.py tests the rules themselves and their runbook links)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import uuid

import pytest
import yaml

from libs.contract.parts import GATEWAY, ROOT
from libs.local.ports import free_port
from libs.local.processes import start, stop, wait_ready
from libs.local.stores import DATA
from tests.e2e.conftest import LiveStack

MONITORING = ROOT / "deploy" / "monitoring"
PROMQL_WORDS = {
    "sum",
    "max",
    "min",
    "avg",
    "count",
    "rate",
    "irate",
    "increase",
    "histogram_quantile",
    "by",
    "without",
    "on",
    "ignoring",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "le",
}


def alert_rules() -> list[dict]:
    document = yaml.safe_load((MONITORING / "alerts.yaml").read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def dashboard_expressions() -> list[str]:
    dashboard = json.loads((MONITORING / "dashboard.json").read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def metric_names(expression: str) -> set[str]:
    """The series a PromQL expression reads: identifiers outside label matchers, groupings,
    strings and range selectors, less the language's own words."""
    stripped = re.sub(r'"[^"]*"|\{[^}]*\}|\[[^\]]*\]|\b(by|without|on|ignoring)\s*\([^)]*\)', " ", expression)
    names = set(re.findall(r"\b[a-zA-Z_:][a-zA-Z0-9_:]*\b", stripped)) - PROMQL_WORDS
    return {name for name in names if "_" in name}


def exposed_names(text: str) -> set[str]:
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


@pytest.fixture(scope="module")
def exposed(live_stack: LiveStack) -> set[str]:
    """Every sample name the running parts expose, after a request whose upstream is down."""
    names = set().union(*(exposed_names(scrape(url)) for url in live_stack.metrics.values()))
    port, metrics_port = free_port(), free_port()
    environ = {**live_stack.environ, "SIMULATIONS_URL": f"http://127.0.0.1:{free_port()}"}
    with open(DATA / f"e2e-monitoring-{uuid.uuid4().hex[:8]}.log", "wb") as output:
        ports = {name: int(url.rpartition(":")[2]) for name, url in live_stack.urls.items()}
        running = start([GATEWAY], environ, {**ports, GATEWAY.name: port}, output, {GATEWAY.name: metrics_port})
        try:
            wait_ready(running)
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/v1/agent-simulation/runs", headers={"x-api-key": live_stack.api_key}
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            refused.value.close()
            assert refused.value.code == 502
            names |= exposed_names(scrape(f"http://127.0.0.1:{metrics_port}/metrics"))
        finally:
            stop(running)
    return names


def test_every_metric_an_alert_names_is_exposed(exposed: set[str]):
    """Of the parts' metrics: `kube_*` series are kube-state-metrics', `up` Prometheus's own,
    `pgbouncer_*` PgBouncer's sidecar's (tests/deploy/test_rollout.py scrapes a real one)."""
    for rule in alert_rules():
        names = metric_names(rule["expr"])
        assert names or "up{" in rule["expr"], rule["alert"]
        missing = {name for name in names if not name.startswith(("kube_", "pgbouncer_"))} - exposed
        assert not missing, (rule["alert"], missing)


def test_every_metric_the_dashboard_plots_is_exposed(exposed: set[str]):
    expressions = dashboard_expressions()
    assert len(expressions) >= 10
    for expression in expressions:
        missing = {name for name in metric_names(expression) if not name.startswith("pgbouncer_")} - exposed
        assert metric_names(expression) and not missing, (expression, missing)

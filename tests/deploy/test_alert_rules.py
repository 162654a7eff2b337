"""The alert rules: valid for Prometheus, each one tested by promtool, each linking its runbook
section under the one configurable base, and watching the platform's one namespace."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import yaml

from deploy.cluster import NAMESPACE, RUNBOOK_BASE
from deploy.manifests import ALERTS, render_alerts
from libs.contract.parts import ROOT

TESTS = ALERTS.with_name("alerts.test.yaml")


def rules() -> list[dict[str, Any]]:
    document = yaml.safe_load(ALERTS.read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert shutil.which("promtool"), "promtool is not installed: `make test` installs it (Debian's prometheus)"
    return subprocess.run(["promtool", *args], cwd=ALERTS.parent, capture_output=True, text=True, check=False)


def test_the_rules_are_valid_and_pass_their_unit_tests():
    checked = promtool("check", "rules", ALERTS.name)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", TESTS.name)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_has_a_case_where_it_fires():
    cases = yaml.safe_load(TESTS.read_text())["tests"]
    firing = {check["alertname"] for case in cases for check in case["alert_rule_test"] if check["exp_alerts"]}
    assert {rule["alert"] for rule in rules()} == firing


def test_the_alerts_the_issue_asks_for_exist():
    assert {
        "TargetDown",
        "PartNotScraped",
        "PodRestarting",
        "ContainerOOMKilled",
        "AutoscalerAtMaximum",
        "MigrateJobFailed",
        "CredentialBruteForce",
        "SearchIndexingSlow",
    } <= {rule["alert"] for rule in rules()}


def test_runbook_links_are_absolute_under_one_base_and_name_a_section():
    assert ALERTS.read_text() == render_alerts(ALERTS.read_text()), "run `make manifests`"
    headings = re.findall(r"^#+ (.+)$", (ROOT / "docs" / "operations.md").read_text(), flags=re.MULTILINE)
    anchors = {re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-") for heading in headings}
    for rule in rules():
        assert rule["annotations"]["runbook_url"] == f"{RUNBOOK_BASE}#{rule['alert'].lower()}"
        assert rule["alert"].lower() in anchors, rule["alert"]
        assert rule["for"] and rule["labels"]["severity"] in {"page", "warn"}


def test_kubernetes_series_are_read_in_the_platforms_namespace():
    for rule in rules():
        if "kube_" in rule["expr"]:
            assert set(re.findall(r'namespace="([^"]*)"', rule["expr"])) == {NAMESPACE}, rule["alert"]

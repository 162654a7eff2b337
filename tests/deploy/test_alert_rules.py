"""The alert rules: valid for Prometheus, each one tested by promtool, each linking its runbook
section under the one configurable base, and watching the platform's one namespace."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import yaml

from deploy.cluster import NAMESPACE, RUNBOOK_BASE
from deploy.manifests import ALERTS, SCRAPED, render_alerts
from libs.contract.parts import PARTS, ROOT

TESTS = ALERTS.with_name("alerts.test.yaml")


def rules() -> list[dict[str, Any]]:
    document = yaml.safe_load(ALERTS.read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert shutil.which("promtool"), "promtool is not installed: `make test` installs it (Debian's prometheus)"
    return subprocess.run(["promtool", *args], cwd=ALERTS.parent, capture_output=True, text=True, check=False)


def scraped_cases() -> list[dict[str, Any]]:
    """PartNotScraped's cases, one for each thing scraped: every other one up, this one with no
    series at all (it fires for this one alone), and then every one up (it stays quiet)."""

    def up(names: tuple[str, ...]) -> list[dict[str, str]]:
        return [{"series": f'up{{job="aivis", app="{name}", pod="{name}-1"}}', "values": "1x15"} for name in names]

    runbook = f"{RUNBOOK_BASE}#partnotscraped"
    cases = [
        {
            "name": f"PartNotScraped: no {missing} pod scraped",
            "interval": "1m",
            "input_series": up(tuple(name for name in SCRAPED if name != missing)),
            "alert_rule_test": [
                {"eval_time": "9m", "alertname": "PartNotScraped", "exp_alerts": []},  # not for 10 minutes yet
                {
                    "eval_time": "11m",
                    "alertname": "PartNotScraped",
                    "exp_alerts": [
                        {
                            "exp_labels": {"job": "aivis", "app": missing, "severity": "page"},
                            "exp_annotations": {
                                "summary": f"no {missing} pod is scraped: monitoring of it is blind",
                                "runbook_url": runbook,
                            },
                        }
                    ],
                },
            ],
        }
        for missing in SCRAPED
    ]
    everything = {"eval_time": "14m", "alertname": "PartNotScraped", "exp_alerts": []}
    cases.append(
        {
            "name": "PartNotScraped: all scraped",
            "interval": "1m",
            "input_series": up(SCRAPED),
            "alert_rule_test": [everything],
        }
    )
    return cases


def every_case() -> list[dict[str, Any]]:
    return [*yaml.safe_load(TESTS.read_text())["tests"], *scraped_cases()]


def test_the_rules_are_valid_and_pass_their_unit_tests(tmp_path):
    checked = promtool("check", "rules", ALERTS.name)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", TESTS.name)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    scraped = tmp_path / "scraped.test.yaml"
    scraped.write_text(
        yaml.safe_dump({"rule_files": [str(ALERTS)], "evaluation_interval": "1m", "tests": scraped_cases()})
    )
    tested = promtool("test", "rules", str(scraped))
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_has_a_case_where_it_fires_and_one_where_it_does_not():
    checks = [check for case in every_case() for check in case["alert_rule_test"]]
    alerts = {rule["alert"] for rule in rules()}
    assert {check["alertname"] for check in checks if check["exp_alerts"]} == alerts
    assert {check["alertname"] for check in checks if not check["exp_alerts"]} == alerts


def test_part_not_scraped_watches_every_part_and_pgbouncer():
    (rule,) = [rule for rule in rules() if rule["alert"] == "PartNotScraped"]
    assert set(re.findall(r'app="([^"]+)"', rule["expr"])) == {*(part.name for part in PARTS), "pgbouncer"}


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

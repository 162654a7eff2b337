"""The Kubernetes manifests: what the parts list renders, valid for a named Kubernetes version, and
hardened as an operator expects of every Deployment."""

from __future__ import annotations

import re
from typing import Any

import kubernetes_validate
import pytest
import yaml

from deploy.manifests import GRACEFUL_TIMEOUT_SECONDS, K8S, render
from deploy.network_policies import MONITORING_NAMESPACE
from libs.contract.parts import GATEWAY, PARTS, ROOT, SERVICES, callers_of

KUBERNETES_VERSION = "1.32.0"


def documents() -> list[dict[str, Any]]:
    return [
        document
        for name, content in sorted(render().items())
        if name != "kustomization.yaml"
        for document in yaml.safe_load_all(content)
    ]


def of_kind(kind: str) -> list[dict[str, Any]]:
    return [document for document in documents() if document["kind"] == kind]


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector["matchLabels"].items())


def pod_specs() -> list[tuple[str, dict[str, Any]]]:
    workloads = of_kind("Deployment") + of_kind("Job")
    return [(workload["metadata"]["name"], workload["spec"]["template"]) for workload in workloads]


def test_committed_manifests_match_the_parts_list():
    rendered = render()
    for name, content in rendered.items():
        assert (K8S / name).read_text() == content, f"deploy/k8s/{name} is stale: run `make manifests`"
    assert {f"{part.name}.yaml" for part in PARTS} <= set(rendered)
    listed = yaml.safe_load(rendered["kustomization.yaml"])["resources"]
    assert {path.name for path in K8S.glob("*.yaml")} - set(listed) == {"kustomization.yaml", "secrets.example.yaml"}


@pytest.mark.parametrize("document", documents(), ids=lambda d: f"{d['kind']}/{d['metadata']['name']}")
def test_every_object_validates_strictly(document):
    kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_every_deployment_has_probes_resources_a_budget_and_a_policy():
    budgets, policies = of_kind("PodDisruptionBudget"), of_kind("NetworkPolicy")
    deployments = of_kind("Deployment")
    assert {d["metadata"]["name"] for d in deployments} == {part.name for part in PARTS}
    for deployment in deployments:
        name = deployment["metadata"]["name"]
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        spec = deployment["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz", name
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz", name
        assert [b for b in budgets if selects(b["spec"]["selector"], labels)], f"{name} has no PodDisruptionBudget"
        assert [p for p in policies if selects(p["spec"]["podSelector"], labels)], f"{name} has no NetworkPolicy"
        pause = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
        assert spec["terminationGracePeriodSeconds"] > pause + GRACEFUL_TIMEOUT_SECONDS, name
        assert f"--graceful-timeout {GRACEFUL_TIMEOUT_SECONDS}" in container["command"][-1], name
    (search,) = [d for d in deployments if d["metadata"]["name"] == "search"]
    assert search["spec"]["template"]["spec"]["containers"][0]["startupProbe"]["failureThreshold"] >= 30


@pytest.mark.parametrize("name,template", pod_specs(), ids=lambda value: value if isinstance(value, str) else "")
def test_every_container_is_hardened_and_bounded(name, template):
    spec = template["spec"]
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    for container in spec.get("initContainers", []) + spec["containers"]:
        context = container["securityContext"]
        assert context["capabilities"] == {"drop": ["ALL"]}, (name, container["name"])
        assert context["allowPrivilegeEscalation"] is False
        assert context["readOnlyRootFilesystem"] is True
        assert context["seccompProfile"] == {"type": "RuntimeDefault"}
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]), (name, container["name"])
        assert "memory" in container["resources"]["limits"], (name, container["name"])


def test_the_migrate_job_is_cleaned_up_and_parts_wait_for_their_schema():
    (job,) = of_kind("Job")
    assert job["spec"]["ttlSecondsAfterFinished"] > 0
    assert job["spec"]["template"]["spec"]["containers"][0]["command"][-2:] == ["deploy.db", "setup"]
    for deployment in of_kind("Deployment"):
        name = deployment["metadata"]["name"]
        (init,) = deployment["spec"]["template"]["spec"]["initContainers"]
        assert init["command"][:5] == ["python", "-m", "deploy.db", "wait", name]
        assert init["env"][0]["valueFrom"]["secretKeyRef"]["key"] == f"{name}-database-url"


def test_the_example_secret_lists_every_secret_a_pod_references():
    referenced = set(re.findall(r"secretKeyRef: \{name: aivis-secrets, key: ([a-z-]+)", "".join(render().values())))
    example = yaml.safe_load(render()["secrets.example.yaml"])["stringData"]
    assert referenced == set(example)
    assert {f"{part.name}-database-url" for part in PARTS} <= referenced


def test_metrics_are_scraped_from_their_own_port_which_only_monitoring_reaches():
    for deployment in of_kind("Deployment"):
        part = next(p for p in PARTS if p.name == deployment["metadata"]["name"])
        template = deployment["spec"]["template"]
        (container,) = template["spec"]["containers"]
        ports = {port["name"]: port["containerPort"] for port in container["ports"]}
        assert ports == {"http": part.port, "metrics": part.metrics_port}
        assert template["metadata"]["annotations"]["prometheus.io/port"] == str(part.metrics_port)
    for service in of_kind("Service"):
        assert [port["name"] for port in service["spec"]["ports"]] == ["http"]
    for policy in of_kind("NetworkPolicy"):
        for rule in policy["spec"]["ingress"]:
            if {"port": "metrics"} in rule["ports"]:
                assert rule["from"] == [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": MONITORING_NAMESPACE}}}
                ]


def test_network_policies_follow_the_declared_calls():
    policies = {policy["metadata"]["name"]: policy["spec"] for policy in of_kind("NetworkPolicy")}
    for part in PARTS:
        policy = policies[part.name]
        http = next(rule for rule in policy["ingress"] if rule["ports"] == [{"port": "http"}])
        if part is GATEWAY:
            assert "from" not in http  # the only part the outside reaches
        else:
            sources = {source["podSelector"]["matchLabels"]["app.kubernetes.io/name"] for source in http["from"]}
            assert sources == {caller.name for caller in callers_of(part)}
            assert GATEWAY.name in sources or part.name not in GATEWAY.calls
        reached = {rule["to"][0]["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
                   for rule in policy["egress"] if "to" in rule and "podSelector" in rule["to"][0]
                   and "namespaceSelector" not in rule["to"][0]}  # fmt: skip
        assert reached == set(part.calls)
        egress_ports = {port["port"] for rule in policy["egress"] for port in rule["ports"]}
        assert {5432, 6379, 53} <= egress_ports


def test_declared_calls_are_the_parts_each_one_reaches_in_code():
    """A part's settings read `<PART>_URL` for each part it calls (the gateway: every service)."""
    for part in PARTS:
        source = "".join(path.read_text() for path in ROOT.joinpath(*part.package.split(".")).rglob("*.py"))
        named = set(re.findall(r'part_url\("([a-z]+)"\)', source))
        if part is GATEWAY:
            named |= {service.name for service in SERVICES}
        assert named == set(part.calls), part.name

"""The Kubernetes manifests: what the parts list renders, valid for a named Kubernetes version, and
hardened as an operator expects of every Deployment."""

from __future__ import annotations

import ipaddress
import re
import subprocess
import sys
from typing import Any

import kubernetes_validate
import pytest
import yaml

from deploy import images, pgbouncer
from deploy.caddy_manifests import CADDYFILE
from deploy.cluster import (
    CADDY,
    CONFIG_DIGEST,
    NAMESPACE,
    NODE_LOCAL_DNS,
    PGBOUNCER,
    PGBOUNCER_PORT,
    PUBLIC_HOST,
    PUBLIC_URL,
)
from deploy.manifests import K8S, render
from deploy.network_policies import MONITORING_NAMESPACE
from deploy.part_manifests import GRACEFUL_TIMEOUT_SECONDS
from libs.common.health import READY_TIMEOUT_SECONDS
from libs.contract.parts import BY_NAME, EDGE, GATEWAY, PARTS, ROOT, SEARCH, SERVICES, callers_of
from tests.deploy.cluster import parsed

KUBERNETES_VERSION = "1.32.0"


def documents() -> list[dict[str, Any]]:
    return [
        document
        for name, content in sorted(render().items())
        if name != "kustomization.yaml"
        for document in parsed(content)
    ]


def of_kind(kind: str) -> list[dict[str, Any]]:
    return [document for document in documents() if document["kind"] == kind]


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector["matchLabels"].items())


def part_deployments() -> list[dict[str, Any]]:
    return [d for d in of_kind("Deployment") if d["metadata"]["name"] in BY_NAME]


def pgbouncer_template() -> dict[str, Any]:
    (deployment,) = [d for d in of_kind("Deployment") if d["metadata"]["name"] == PGBOUNCER]
    template: dict[str, Any] = deployment["spec"]["template"]
    return template


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
    deployments = part_deployments()
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


def test_every_container_that_serves_is_probed_both_ways():
    """Readiness keeps traffic from a container that cannot answer; liveness restarts one that
    hangs (the exporter sidecars too: a wedged one would only stop being scraped)."""
    for deployment in of_kind("Deployment"):
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            where = (deployment["metadata"]["name"], container["name"])
            assert "readinessProbe" in container, where
            assert "livenessProbe" in container, where


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
    assert job["spec"]["ttlSecondsAfterFinished"] >= 3 * 24 * 3600  # a failed Job's logs outlast a weekend
    assert job["spec"]["template"]["spec"]["containers"][0]["command"][-2:] == ["deploy.db", "setup"]
    for deployment in part_deployments():
        name = deployment["metadata"]["name"]
        (init,) = deployment["spec"]["template"]["spec"]["initContainers"]
        assert init["command"][:5] == ["python", "-m", "deploy.db", "wait", name]
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        assert init["env"] == [item for item in container["env"] if item["name"] in {e["name"] for e in init["env"]}]


def test_the_example_secret_lists_every_secret_a_pod_references():
    referenced = set(re.findall(r"secretKeyRef: \{name: aivis-secrets, key: ([a-z-]+)", "".join(render().values())))
    example = yaml.safe_load(render()["secrets.example.yaml"])["stringData"]
    assert referenced == set(example)
    assert {f"{part.name}-db-password" for part in PARTS} <= referenced


def test_metrics_are_scraped_from_their_own_port_which_only_monitoring_reaches():
    for deployment in part_deployments():
        part = BY_NAME[deployment["metadata"]["name"]]
        template = deployment["spec"]["template"]
        (container,) = template["spec"]["containers"]
        ports = {port["name"]: port["containerPort"] for port in container["ports"]}
        assert ports == {"http": part.port, "metrics": part.metrics_port}
        assert template["metadata"]["annotations"]["prometheus.io/port"] == str(part.metrics_port)
    for service in of_kind("Service"):
        if service["metadata"]["name"] in BY_NAME:
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
        if part in (GATEWAY, EDGE):
            assert "from" not in http  # the parts the outside reaches: the API and the Apps' sites
        else:
            sources = {source["podSelector"]["matchLabels"]["app.kubernetes.io/name"] for source in http["from"]}
            assert sources == {caller.name for caller in callers_of(part)}
            assert GATEWAY.name in sources or part.name not in GATEWAY.calls
        reached = {
            rule["to"][0]["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
            for rule in policy["egress"]
            if "to" in rule and "podSelector" in rule["to"][0] and "namespaceSelector" not in rule["to"][0]
        }
        assert reached == {*part.calls, PGBOUNCER}
        egress_ports = {port.get("port") for rule in policy["egress"] for port in rule.get("ports", [])}
        assert {PGBOUNCER_PORT, 6379, 53} <= egress_ports
        assert 5432 not in egress_ports  # every connection of a part, relays' included, goes through PgBouncer
        public = [
            rule
            for rule in policy["egress"]
            if "ipBlock" in rule.get("to", [{}])[0] and rule["to"][0]["ipBlock"]["cidr"] == "0.0.0.0/0"
        ]
        assert bool(public) == part.public_egress, part.name  # webhook receivers and origins: events and edge
        for rule in public:
            assert {"10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16"} <= set(rule["to"][0]["ipBlock"]["except"])


def test_declared_calls_are_the_parts_each_one_reaches_in_code():
    """A part's settings read `<PART>_URL` for each part it calls (the gateway: every service)."""
    for part in PARTS:
        source = "".join(path.read_text() for path in ROOT.joinpath(*part.package.split(".")).rglob("*.py"))
        named = set(re.findall(r'part_url\("([a-z]+)"\)', source))
        if part is GATEWAY:
            named |= {service.name for service in SERVICES}
        assert named == set(part.calls), part.name


def test_one_namespace_everywhere_the_scrape_configuration_included():
    namespaced = [d for d in documents() if d["kind"] != "Namespace"]
    assert {d["metadata"]["namespace"] for d in namespaced} == {NAMESPACE}
    (namespace,) = of_kind("Namespace")
    assert namespace["metadata"]["name"] == NAMESPACE
    assert yaml.safe_load(render()["kustomization.yaml"])["namespace"] == NAMESPACE
    operations = (ROOT / "docs" / "operations.md").read_text()
    assert f"namespaces: {{names: [{NAMESPACE}]}}" in operations
    assert "kubectl " in operations
    assert re.findall(f"kubectl (?!-n {NAMESPACE} )\\S+", operations) == []  # every command names it


def test_images_name_a_registry_an_immutable_tag_and_a_digest():
    release = images.load()
    for _, template in pod_specs() + [(PGBOUNCER, pgbouncer_template())]:
        for container in template["spec"].get("initContainers", []) + template["spec"]["containers"]:
            assert container["image"] in {release.platform, release.pgbouncer, release.caddy}
            images.check_reference(container["image"])
    images.check_reference(release.platform, release=True)
    for bad in (
        "aivis-platform:0.1.0",
        "registry.example.com/aivis/platform:0.1.0@sha256:" + "0" * 64,
        "aivis/platform:0.1.0-abcdef1@sha256:" + "0" * 64,
    ):
        with pytest.raises(images.ImageError):
            images.check_reference(bad, release=True)


def test_the_autoscaler_alone_sets_the_replicas():
    scaled = {hpa["spec"]["scaleTargetRef"]["name"] for hpa in of_kind("HorizontalPodAutoscaler")}
    assert scaled == {part.name for part in PARTS}
    for deployment in part_deployments():
        assert "replicas" not in deployment["spec"], deployment["metadata"]["name"]


def test_pods_have_their_own_service_account_without_a_token_and_spread_over_nodes_and_zones():
    accounts = {account["metadata"]["name"]: account for account in of_kind("ServiceAccount")}
    for name, template in pod_specs() + [(PGBOUNCER, pgbouncer_template())]:
        spec = template["spec"]
        assert spec["serviceAccountName"] == name
        assert spec["automountServiceAccountToken"] is False
        assert accounts[name]["automountServiceAccountToken"] is False
        if name != "migrate":
            keys = {constraint["topologyKey"] for constraint in spec["topologySpreadConstraints"]}
            assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}, name


def test_readiness_probes_wait_longer_than_the_checks_themselves():
    for deployment in part_deployments():
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        assert container["readinessProbe"]["timeoutSeconds"] > READY_TIMEOUT_SECONDS


def test_dns_egress_also_reaches_node_local_dns_cache():
    for policy in of_kind("NetworkPolicy"):
        dns = [rule for rule in policy["spec"]["egress"] if {"port": 53, "protocol": "UDP"} in rule["ports"]]
        assert dns and {"ipBlock": {"cidr": NODE_LOCAL_DNS}} in dns[0]["to"], policy["metadata"]["name"]


def test_the_migrate_job_sets_every_role_password_the_parts_and_pgbouncer_log_in_with():
    (job,) = of_kind("Job")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    keys = {item["name"]: item["valueFrom"]["secretKeyRef"]["key"] for item in container["env"]}
    assert keys == {
        "DATABASE_URL": "admin-database-url",
        **{f"{part.name.upper()}_DB_PASSWORD": f"{part.name}-db-password" for part in PARTS},
    }
    for deployment in part_deployments():
        name = deployment["metadata"]["name"]
        (main,) = deployment["spec"]["template"]["spec"]["containers"]
        password = next(item for item in main["env"] if item["name"] == "PGPASSWORD")
        assert password["valueFrom"]["secretKeyRef"]["key"] == f"{name}-db-password"
        url = next(item["value"] for item in main["env"] if item["name"] == "DATABASE_URL")
        assert url.startswith(f"postgresql://{BY_NAME[name].role}@{PGBOUNCER}:{PGBOUNCER_PORT}/")


def test_parts_that_run_an_outbox_relay_declare_it_and_get_a_session_connection():
    for part in PARTS:
        source = "".join(path.read_text() for path in ROOT.joinpath(*part.package.split(".")).rglob("*.py"))
        relays = "OutboxRelay(" in source or "webhook_relay_ctx" in source  # its own relay, or the webhook outbox's
        assert relays == part.relays, part.name
        # The outboxes the connection budget counts (one lock holder each) are the ones in the code.
        outboxes = source.count("OutboxRelay(") + ("webhook_relay_ctx" in source)
        assert pgbouncer.outboxes(part) == outboxes, part.name
    for deployment in part_deployments():
        (main,) = deployment["spec"]["template"]["spec"]["containers"]
        names = {item["name"] for item in main["env"]}
        assert ("SESSION_DATABASE_URL" in names) == BY_NAME[deployment["metadata"]["name"]].relays


def test_public_url_is_the_ingress_host_and_trusted_proxies_are_set():
    (config,) = [c for c in of_kind("ConfigMap") if c["metadata"]["name"] == "aivis-config"]
    (ingress,) = of_kind("Ingress")
    assert config["data"]["PUBLIC_URL"] == PUBLIC_URL == f"https://{ingress['spec']['rules'][0]['host']}"
    assert ingress["spec"]["tls"] == [{"hosts": [PUBLIC_HOST], "secretName": "aivis-tls"}]
    for cidr in config["data"]["TRUSTED_PROXIES"].split(","):
        ipaddress.ip_network(cidr.strip())


def test_help_writes_nothing(tmp_path):
    before = {path: path.read_bytes() for path in K8S.glob("*")}
    done = subprocess.run(
        [sys.executable, "-m", "deploy.manifests", "--help"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "usage" in done.stdout
    assert {path: path.read_bytes() for path in K8S.glob("*")} == before


def test_a_changed_setting_rolls_exactly_the_pods_that_read_it(monkeypatch):
    def digests() -> dict[str, str]:  # Caddy reads none of the settings
        return {
            d["metadata"]["name"]: d["spec"]["template"]["metadata"]["annotations"][CONFIG_DIGEST]
            for d in of_kind("Deployment")
            if d["metadata"]["name"] != CADDY
        }

    before = digests()
    assert set(before) == {*(part.name for part in PARTS), PGBOUNCER}
    monkeypatch.setattr("deploy.manifests.PUBLIC_URL", "https://api.example.org")
    after = digests()
    assert {name for name in before if before[name] != after[name]} == {part.name for part in PARTS}
    monkeypatch.setattr("deploy.manifests.POSTGRES_HOST", "postgres-primary")
    assert digests()[PGBOUNCER] != before[PGBOUNCER]


def test_every_container_of_search_has_a_cpu_limit():
    (deployment,) = [d for d in part_deployments() if d["metadata"]["name"] == SEARCH.name]
    spec = deployment["spec"]["template"]["spec"]
    for container in spec["initContainers"] + spec["containers"]:
        assert "cpu" in container["resources"]["limits"], container["name"]


def test_caddy_ends_tls_for_the_apps_domains_asking_the_edge():
    (config,) = [c for c in of_kind("ConfigMap") if c["metadata"]["name"] == CADDY]
    assert config["data"]["Caddyfile"] == CADDYFILE.read_text()  # the committed Caddyfile, as it is
    assert "ask http://{$EDGE_ADDRESS}/tls/ask" in config["data"]["Caddyfile"]
    (deployment,) = [d for d in of_kind("Deployment") if d["metadata"]["name"] == CADDY]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item["value"] for item in container["env"]}
    assert env["EDGE_ADDRESS"] == f"{EDGE.name}.{NAMESPACE}.svc:{EDGE.port}"
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert ports == {"http": int(env["HTTP_PORT"]), "https": int(env["HTTPS_PORT"])}
    assert min(ports.values()) >= 1024  # no capability to bind below it
    (service,) = [s for s in of_kind("Service") if s["metadata"]["name"] == CADDY]
    assert service["spec"]["type"] == "LoadBalancer" and service["spec"]["externalTrafficPolicy"] == "Local"
    assert {(port["port"], port["targetPort"]) for port in service["spec"]["ports"]} == {(80, "http"), (443, "https")}
    mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
    volumes = {volume["name"]: volume for volume in deployment["spec"]["template"]["spec"]["volumes"]}
    assert volumes[mounts["/data"]]["persistentVolumeClaim"]["claimName"] in {
        claim["metadata"]["name"] for claim in of_kind("PersistentVolumeClaim")
    }  # certificates survive a restart and are shared by the replicas
    (policy,) = [p for p in of_kind("NetworkPolicy") if p["metadata"]["name"] == CADDY]
    targets = [rule["to"][0] for rule in policy["spec"]["egress"] if "to" in rule]
    reached = [
        to["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
        for to in targets
        if "podSelector" in to and "namespaceSelector" not in to
    ]
    assert reached == [EDGE.name]

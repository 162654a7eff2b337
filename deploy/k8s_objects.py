"""The pieces every workload's manifest shares, written once: the security contexts, the secret
the pods read, a ServiceAccount, the spread of a Deployment's pods, a Service and a
PodDisruptionBudget. deploy/manifests.py (the parts, the migrate Job) and
deploy/cluster_manifests.py (PgBouncer) build their objects from them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from deploy.cluster import metadata
from libs.contract.parts import Part

SECRET = "aivis-secrets"
POD_SECURITY = (
    "{runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: {type: RuntimeDefault}}"
)
CONTAINER_SECURITY = (
    "{allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]},"
    " seccompProfile: {type: RuntimeDefault}}"
)
# The pods of a Deployment on different nodes and zones, so one failure takes at most a share of them.
SPREAD_OVER = ("kubernetes.io/hostname", "topology.kubernetes.io/zone")


def password_env(part: Part, name: str = "PGPASSWORD") -> str:
    """A part's database password from the secret, as a container's `env` entry (libpq reads
    PGPASSWORD itself)."""
    return (
        f"            - name: {name}\n"
        f"              valueFrom: {{secretKeyRef: {{name: {SECRET}, key: {part.name}-db-password}}}}\n"
    )


def every_password_env(parts: tuple[Part, ...]) -> str:
    """Every part's database password, each as `<PART>_DB_PASSWORD`."""
    return "".join(password_env(part, f"{part.name.upper()}_DB_PASSWORD") for part in parts)


def service_account(name: str) -> str:
    """A ServiceAccount without an API token (no workload here talks to the Kubernetes API)."""
    return f"apiVersion: v1\nkind: ServiceAccount\n{metadata(name)}automountServiceAccountToken: false\n---\n"


def spread_constraints(name: str) -> str:
    """A Deployment's pod spec's `topologySpreadConstraints`, over SPREAD_OVER."""
    return "      topologySpreadConstraints:\n" + "".join(
        f"        - {{maxSkew: 1, topologyKey: {key}, whenUnsatisfiable: ScheduleAnyway,\n"
        f"           labelSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}},"
        " matchLabelKeys: [pod-template-hash]}\n"
        for key in SPREAD_OVER
    )


def service(name: str, port_name: str, port: int) -> str:
    """The Service in front of a Deployment's pods, its one port named as the container's."""
    return (
        f"apiVersion: v1\nkind: Service\n{metadata(name)}spec:\n"
        f"  selector: {{app.kubernetes.io/name: {name}}}\n"
        f"  ports: [{{name: {port_name}, port: {port}, targetPort: {port_name}}}]\n---\n"
    )


def disruption_budget(name: str) -> str:
    """At least one pod of the Deployment stays up through a voluntary disruption (a node drain)."""
    return (
        f"apiVersion: policy/v1\nkind: PodDisruptionBudget\n{metadata(name)}spec:\n  minAvailable: 1\n"
        f"  selector:\n    matchLabels: {{app.kubernetes.io/name: {name}}}\n---\n"
    )


def digest(settings: Mapping[str, str]) -> str:
    """A short digest of settings, for a pod template's CONFIG_DIGEST annotation."""
    return hashlib.sha256(json.dumps(dict(settings), sort_keys=True).encode()).hexdigest()[:16]

"""The NetworkPolicy of each part, from the call graph declared in libs/contract/parts.py.

Ingress: the gateway takes outside traffic on its HTTP port; a service takes only the parts that
call it (the gateway, and the callers in docs/architecture.md's table of internal contracts); the
metrics port only the monitoring namespace. Egress: PostgreSQL, Redis, DNS and the parts it calls.
PostgreSQL and Redis are matched by port, not by pod, so the same policy holds for stores inside
the cluster and for managed ones outside it.
"""

from __future__ import annotations

from libs.contract.parts import GATEWAY, PARTS, Part, callers_of

MONITORING_NAMESPACE = "monitoring"
POSTGRES_PORT = 5432
REDIS_PORT = 6379

_BY_NAME = {part.name: part for part in PARTS}


def _selector(name: str) -> str:
    return f"{{podSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}}}"


def _store_and_dns_egress() -> str:
    return (
        f"    - ports: [{{port: {POSTGRES_PORT}, protocol: TCP}}]  # PostgreSQL\n"
        f"    - ports: [{{port: {REDIS_PORT}, protocol: TCP}}]  # Redis\n"
        "    - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]\n"
        "      ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]\n"
    )


def render_part_policy(part: Part) -> str:
    if part is GATEWAY:
        http_from = "    - ports: [{port: http}]  # from anywhere: the platform's only public entrance\n"
    else:
        sources = ", ".join(_selector(caller.name) for caller in callers_of(part))
        http_from = f"    - from: [{sources}]\n      ports: [{{port: http}}]\n"
    calls = "".join(
        f"    - to: [{_selector(name)}]\n      ports: [{{port: {_BY_NAME[name].port}, protocol: TCP}}]\n"
        for name in part.calls
    )
    return (
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        "metadata:\n"
        f"  name: {part.name}\n"
        "spec:\n"
        f"  podSelector: {{matchLabels: {{app.kubernetes.io/name: {part.name}}}}}\n"
        "  policyTypes: [Ingress, Egress]\n"
        "  ingress:\n"
        f"{http_from}"
        "    - from: [{namespaceSelector: {matchLabels: "
        f"{{kubernetes.io/metadata.name: {MONITORING_NAMESPACE}}}}}}}]\n"
        "      ports: [{port: metrics}]\n"
        "  egress:\n"
        f"{_store_and_dns_egress()}{calls}"
    )


def render_migrate_policy() -> str:
    """The migrate Job talks to PostgreSQL only, and nothing talks to it."""
    return (
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        "metadata:\n"
        "  name: migrate\n"
        "spec:\n"
        "  podSelector: {matchLabels: {app.kubernetes.io/name: migrate}}\n"
        "  policyTypes: [Ingress, Egress]\n"
        "  ingress: []\n"
        "  egress:\n"
        f"    - ports: [{{port: {POSTGRES_PORT}, protocol: TCP}}]  # PostgreSQL\n"
        "    - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]\n"
        "      ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]\n"
    )

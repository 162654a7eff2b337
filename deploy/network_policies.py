"""The NetworkPolicy of each part, from the call graph declared in libs/contract/parts.py.

Ingress: the gateway takes outside traffic on its HTTP port; a service takes only the parts that
call it (the gateway, and the callers in docs/architecture.md's table of internal contracts); the
metrics port only the monitoring namespace. Egress: PgBouncer (every connection of a part, its
relays' sessions included, goes through it), Redis, DNS and the parts it calls. PostgreSQL (for
the migrate Job and PgBouncer) and Redis are matched by port, not by pod, so the same policy
holds for stores inside the cluster and for managed ones outside it.
"""

from __future__ import annotations

from deploy.cluster import CADDY, NODE_LOCAL_DNS, PGBOUNCER, PGBOUNCER_PORT, POSTGRES_PORT, REDIS_PORT, metadata
from libs.contract.parts import EDGE, GATEWAY, PARTS, Part, callers_of

MONITORING_NAMESPACE = "monitoring"

_BY_NAME = {part.name: part for part in PARTS}


def _selector(name: str) -> str:
    return f"{{podSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}}}"


def _dns_egress() -> str:
    """Cluster DNS pods, and NodeLocal DNSCache's address on the node where it runs."""
    return (
        "    - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}, "
        f"{{ipBlock: {{cidr: {NODE_LOCAL_DNS}}}}}]\n"
        "      ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]\n"
    )


def _store_egress() -> str:
    return (
        f"    - to: [{_selector(PGBOUNCER)}]\n"
        f"      ports: [{{port: {PGBOUNCER_PORT}, protocol: TCP}}]\n"
        f"    - ports: [{{port: {REDIS_PORT}, protocol: TCP}}]  # Redis\n"
    )


# Webhook receivers and Apps' origins: anywhere on the internet, never the private, loopback or
# link-local ranges (the events service and the edge refuse those themselves too, at connection time).
PUBLIC_EXCEPT = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "127.0.0.0/8")


def _public_egress() -> str:
    return (
        "    - to: [{ipBlock: {cidr: 0.0.0.0/0, except: [" + ", ".join(PUBLIC_EXCEPT) + "]}}]"
        "  # webhook receivers, Apps' origins, on any port\n"
        "      ports: [{protocol: TCP}]\n"
    )


def _policy(name: str, ingress: str, egress: str) -> str:
    return (
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        f"{metadata(name)}"
        "spec:\n"
        f"  podSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}\n"
        "  policyTypes: [Ingress, Egress]\n"
        f"  ingress:{ingress}\n"
        f"  egress:\n{egress}{_dns_egress()}"
    )


def _metrics_from() -> str:
    """The monitoring namespace, to the pod's port named `metrics`."""
    return (
        "    - from: [{namespaceSelector: {matchLabels: "
        f"{{kubernetes.io/metadata.name: {MONITORING_NAMESPACE}}}}}}}]\n"
        "      ports: [{port: metrics}]"
    )


def render_part_policy(part: Part) -> str:
    if part in (GATEWAY, EDGE):
        http_from = "    - ports: [{port: http}]  # from anywhere: a public entrance (the API; the Apps' sites)\n"
    else:
        sources = ", ".join(_selector(caller.name) for caller in callers_of(part))
        http_from = f"    - from: [{sources}]\n      ports: [{{port: http}}]\n"
    metrics_from = _metrics_from()
    calls = "".join(
        f"    - to: [{_selector(name)}]\n      ports: [{{port: {_BY_NAME[name].port}, protocol: TCP}}]\n"
        for name in part.calls
    )
    return _policy(
        part.name,
        f"\n{http_from}{metrics_from}",
        _store_egress() + calls + (_public_egress() if part.public_egress else ""),
    )


def render_migrate_policy() -> str:
    """The migrate Job talks to PostgreSQL only, and nothing talks to it."""
    return _policy("migrate", " []", f"    - ports: [{{port: {POSTGRES_PORT}, protocol: TCP}}]  # PostgreSQL\n")


def render_pgbouncer_policy() -> str:
    """PgBouncer takes the parts' connections and makes its own to PostgreSQL."""
    sources = ", ".join(_selector(part.name) for part in PARTS)
    ingress = f"\n    - from: [{sources}]\n      ports: [{{port: {PGBOUNCER_PORT}, protocol: TCP}}]\n{_metrics_from()}"
    return _policy(PGBOUNCER, ingress, f"    - ports: [{{port: {POSTGRES_PORT}, protocol: TCP}}]  # PostgreSQL\n")


def render_caddy_policy() -> str:
    """Caddy takes the Apps' visitors on its ports, and reaches the edge and ACME servers (HTTPS)."""
    ingress = "\n    - ports: [{port: http}, {port: https}]  # from anywhere: the Apps' visitors, ACME's HTTP challenge"
    egress = (
        f"    - to: [{_selector(EDGE.name)}]\n      ports: [{{port: {EDGE.port}, protocol: TCP}}]\n"
        "    - to: [{ipBlock: {cidr: 0.0.0.0/0, except: [" + ", ".join(PUBLIC_EXCEPT) + "]}}]"
        "  # ACME (Let's Encrypt)\n      ports: [{port: 443, protocol: TCP}]\n"
    )
    return _policy(CADDY, ingress, egress)

"""Where the platform lives in a cluster, named once: its namespace, the stores' and the
Ingress's addresses. The manifests, the network policies, the docs and the monitoring
configuration all follow these (tests/deploy/test_manifests.py checks the docs)."""

from __future__ import annotations

NAMESPACE = "aivis"
# PostgreSQL as the parts reach it: a Service of that name (an ExternalName one for a managed
# database), and the database every part's schema is in.
POSTGRES_HOST = "postgres"
POSTGRES_PORT = 5432
DATABASE = "aivis"
PGBOUNCER = "pgbouncer"
PGBOUNCER_PORT = 6432
# PgBouncer's metrics sidecar (the port prometheus-pgbouncer-exporters use).
PGBOUNCER_METRICS_PORT = 9127
# A headless Service naming every ready search pod (the gateway hashes organizations over them).
SEARCH_REPLICAS = "search-replicas"
REDIS_PORT = 6379
# Caddy, terminating TLS for the Apps' domains in front of the edge, and its certificates' volume.
CADDY = "caddy"
CADDY_DATA = "caddy-data"
# The Ingress example's host; PUBLIC_URL follows it.
PUBLIC_HOST = "api.example.com"
PUBLIC_URL = f"https://{PUBLIC_HOST}"
# A placeholder for the ingress controller's pod network (a common pod CIDR): the only hops
# whose X-Forwarded-For the gateway believes.
TRUSTED_PROXIES = "10.244.0.0/16"
# Where docs/operations.md is served: every alert's runbook link is this plus its section's anchor.
RUNBOOK_BASE = "https://git.example.com/aivis/platform/-/blob/main/docs/operations.md"
# NodeLocal DNSCache answers on this link-local address on every node (its default); cluster DNS
# pods answer the rest. A policy allowing only the kube-dns pods breaks name lookups under it.
NODE_LOCAL_DNS = "169.254.20.10/32"


# The label of the parts' objects (not PgBouncer's): `kubectl rollout restart deployment -l PARTS_SELECTOR`
# restarts every part and leaves the connections PgBouncer holds alone.
PARTS_SELECTOR = "app.kubernetes.io/component=part"
# The pod template's annotation holding a digest of the settings its containers read from the
# ConfigMap: a changed setting changes the template, so `kubectl apply` rolls the pods.
CONFIG_DIGEST = "aivis/config-digest"


def metadata(name: str, *, part: bool = False) -> str:
    """The metadata block of every object: its name, the namespace and the platform's labels
    (a part's objects also carry PARTS_SELECTOR's)."""
    component = ", app.kubernetes.io/component: part" if part else ""
    return (
        "metadata:\n"
        f"  name: {name}\n"
        f"  namespace: {NAMESPACE}\n"
        f"  labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis{component}}}\n"
    )

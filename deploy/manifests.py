"""Kubernetes manifests for every part, rendered from libs/contract/parts.py into deploy/k8s/.

`python -m deploy.manifests` (or `make manifests`) writes them; a test fails when the committed
files differ from what this renders, so the manifests cannot drift from the parts list.
`--image REF` records a release's image first (deploy/images.py). Each part's objects come from
deploy/part_manifests.py, network policies from deploy/network_policies.py; the namespace,
Ingress and PgBouncer from deploy/cluster_manifests.py; Caddy from deploy/caddy_manifests.py;
the pieces every workload shares from deploy/k8s_objects.py; the addresses from deploy/cluster.py.
Here: the shared ConfigMap, the migrate Job, the example Secret, the kustomization and the alerts.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

from deploy import capacity, images
from deploy.caddy_manifests import render_caddy
from deploy.cluster import (
    DATABASE,
    NAMESPACE,
    PGBOUNCER,
    PGBOUNCER_PORT,
    POSTGRES_HOST,
    POSTGRES_PORT,
    PUBLIC_URL,
    RUNBOOK_BASE,
    SEARCH_REPLICAS,
    TRUSTED_PROXIES,
    metadata,
)
from deploy.cluster_manifests import render_cluster
from deploy.k8s_objects import CONTAINER_SECURITY, POD_SECURITY, SECRET, digest, every_password_env, service_account
from deploy.network_policies import MONITORING_NAMESPACE, render_migrate_policy
from deploy.part_manifests import render_part
from libs.contract.parts import PARTS, ROOT, SEARCH

K8S = ROOT / "deploy" / "k8s"
ALERTS = ROOT / "deploy" / "monitoring" / "alerts.yaml"
MIGRATE_JOB_KEPT_SECONDS = 7 * 24 * 3600


CONFIG_TEMPLATE = """\
# Settings every part shares (no secrets): rendered by `python -m deploy.manifests`.
apiVersion: v1
kind: ConfigMap
{metadata}data:
  REDIS_URL: redis://redis:6379/0
  REDIS_PREFIX: "aivis:"
  LOG_LEVEL: INFO
  ENVIRONMENT: production
  # Where people reach the platform: the Ingress's host (device-flow links, OAuth metadata).
  PUBLIC_URL: {public_url}
  # The ingress controller's pods, whose X-Forwarded-For is believed: replace with the CIDR of
  # your controller's pod network (docs/operations.md, "First rollout").
  TRUSTED_PROXIES: "{trusted_proxies}"
  # PostgreSQL behind PgBouncer (deploy/pgbouncer.py writes PgBouncer's configuration from these).
  POSTGRES_HOST: {postgres_host}
  POSTGRES_PORT: "{postgres_port}"
  POSTGRES_DB: {database}
  PGBOUNCER_PORT: "{pgbouncer_port}"
  # The gateway routes each organization's searches to one search pod (gateway/edge/replicas.py).
  SEARCH_REPLICAS: dns+http://{search_replicas}:{search_port}
{urls}"""

MIGRATE_TEMPLATE = """\
# Applies every part's migrations and sets each part's role password from the secret; the parts'
# pods wait for it in their init container. Idempotent and safe to run twice at once. Kept a week
# after it finishes, so a failed one's logs can be read and its alert stays until it is dealt
# with; an apply deletes it first (docs/operations.md, "First rollout", step 6).
# Rendered by `python -m deploy.manifests`.
{service_account}apiVersion: batch/v1
kind: Job
{metadata}spec:
  backoffLimit: 2
  activeDeadlineSeconds: 900
  ttlSecondsAfterFinished: {ttl}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: migrate, app.kubernetes.io/part-of: aivis}}
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      securityContext: {pod_security}
      containers:
        - name: migrate
          image: {image}
          command: ["python", "-m", "deploy.db", "setup"]
          env:
            # An administrator, straight to PostgreSQL (it creates roles and schemas).
            - name: DATABASE_URL
              valueFrom: {{secretKeyRef: {{name: {secret}, key: admin-database-url}}}}
{passwords}          resources:
            requests: {{cpu: 100m, memory: 128Mi}}
            limits: {{memory: 256Mi}}
          securityContext: {container_security}
---
{network_policy}"""

SECRETS_TEMPLATE = """\
# Every secret a pod references. Create it from real values (never commit them), for example:
#   kubectl -n {namespace} create secret generic aivis-secrets \\
#     --from-literal=internal-token-secret="$(openssl rand -base64 48)" \\
#     --from-file=jwt-private-key=ed25519.pem \\
#     --from-literal=admin-database-url=postgresql://admin:…@{postgres_host}:{postgres_port}/{database} \\
#     --from-literal=gateway-db-password="$(openssl rand -hex 32)" \\
#     … one <part>-db-password per part.
# An Ed25519 key: openssl genpkey -algorithm ed25519 -out ed25519.pem
# The migrate Job sets each part's role password from its <part>-db-password; the parts and
# PgBouncer log in with the same values.
# internal-token-overlap-secret and jwt-verify-keys are optional: set only while rotating
# (docs/operations.md#rotating-the-internal-token-secret, #rotating-the-jwt-signing-key).
# Rendered by `python -m deploy.manifests`.
apiVersion: v1
kind: Secret
{metadata}type: Opaque
stringData:
  internal-token-secret: replace-with-at-least-32-random-characters
  internal-token-overlap-secret: ""
  jwt-private-key: replace-with-an-ed25519-private-key-in-pem
  jwt-verify-keys: ""
  admin-database-url: postgresql://admin:replace-me@{postgres_host}:{postgres_port}/{database}
{passwords}"""

KUSTOMIZATION_TEMPLATE = """\
# Apply with `kubectl apply -k deploy/k8s` after creating the secret (see secrets.example.yaml).
# Every object is in the namespace {namespace}. Prometheus must run in the namespace labelled
# kubernetes.io/metadata.name={monitoring}: only it may reach the metrics ports
# (docs/operations.md#metrics).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: {namespace}
resources:
  - namespace.yaml
  - config.yaml
  - migrate.yaml
  - pgbouncer.yaml
{parts}  - ingress.yaml
  - caddy.yaml
"""


def render(release: images.Images | None = None) -> dict[str, str]:
    """File name -> content of every manifest."""
    release = release or images.load()
    urls = "".join(f"  {part.name.upper()}_URL: http://{part.name}:{part.port}\n" for part in PARTS)
    stores = {"postgres_host": POSTGRES_HOST, "postgres_port": POSTGRES_PORT, "database": DATABASE}
    files = {
        "config.yaml": CONFIG_TEMPLATE.format(
            metadata=metadata("aivis-config"),
            urls=urls,
            public_url=PUBLIC_URL,
            trusted_proxies=TRUSTED_PROXIES,
            pgbouncer_port=PGBOUNCER_PORT,
            search_replicas=SEARCH_REPLICAS,
            search_port=SEARCH.port,
            **stores,
        ),
        "migrate.yaml": MIGRATE_TEMPLATE.format(
            metadata=metadata("migrate"),
            service_account=service_account("migrate"),
            image=release.platform,
            secret=SECRET,
            passwords=every_password_env(PARTS),
            pod_security=POD_SECURITY,
            container_security=CONTAINER_SECURITY,
            network_policy=render_migrate_policy(),
            ttl=MIGRATE_JOB_KEPT_SECONDS,
        ),
        "secrets.example.yaml": SECRETS_TEMPLATE.format(
            metadata=metadata(SECRET),
            namespace=NAMESPACE,
            passwords="".join(f"  {part.name}-db-password: replace-with-a-random-password\n" for part in PARTS),
            **stores,
        ),
        "kustomization.yaml": KUSTOMIZATION_TEMPLATE.format(
            namespace=NAMESPACE,
            monitoring=MONITORING_NAMESPACE,
            parts="".join(f"  - {p.name}.yaml\n" for p in PARTS),
        ),
    }
    settings = yaml.safe_load(files["config.yaml"])["data"]
    files.update(render_cluster(release, settings))
    files["caddy.yaml"] = render_caddy(release)
    every_setting = digest(settings)
    files.update({f"{part.name}.yaml": render_part(part, release.platform, every_setting) for part in PARTS})
    return files


# What Prometheus scrapes: every part, and PgBouncer's metrics sidecar.
SCRAPED = (*(part.name for part in PARTS), PGBOUNCER)


def render_alerts(text: str) -> str:
    """The alert rules with every runbook link under RUNBOOK_BASE (the anchor kept), and
    PartNotScraped's expression naming every part of SCRAPED."""
    text = re.sub(r"(runbook_url: )\S*#", lambda match: f"{match[1]}{RUNBOOK_BASE}#", text)
    absent = "\n          or ".join(f'absent(up{{job="aivis", app="{name}"}})' for name in SCRAPED)
    return re.sub(
        r"(- alert: PartNotScraped\n(?:        #.*\n)*        expr: \|\n)(?:          .*\n)+",
        lambda match: f"{match[1]}          {absent}\n",
        text,
    )


def write(directory: Path = K8S, release: images.Images | None = None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in render(release).items():
        (directory / name).write_text(content)
    ALERTS.write_text(render_alerts(ALERTS.read_text()))
    capacity.DOCS.write_text(capacity.with_table(capacity.DOCS.read_text(), capacity.compute(render(release))))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.manifests", description=__doc__)
    parser.add_argument("--image", help="record this release's image (registry/name:<version>-<commit>@sha256:…)")
    parser.add_argument("--pgbouncer-image", help="record PgBouncer's image (registry/name:tag@sha256:…)")
    parser.add_argument("--caddy-image", help="record Caddy's image (registry/name:tag@sha256:…)")
    args = parser.parse_args(argv)
    release = images.load()
    if args.image or args.pgbouncer_image or args.caddy_image:
        try:
            release = images.Images(
                args.image or release.platform,
                args.pgbouncer_image or release.pgbouncer,
                args.caddy_image or release.caddy,
            )
            images.save(release)
        except images.ImageError as exc:
            parser.error(str(exc))
    write(K8S, release)
    print(f"manifests written to {K8S} (image {release.platform})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

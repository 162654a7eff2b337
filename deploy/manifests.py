"""Kubernetes manifests for every part, rendered from libs/contract/parts.py into deploy/k8s/.

`python -m deploy.manifests` (or `make manifests`) writes them; a test fails when the committed
files differ from what this renders, so the manifests cannot drift from the parts list.
`--image REF` records a release's image first (deploy/images.py). Network policies come from
deploy/network_policies.py; the namespace, Ingress and PgBouncer from deploy/cluster_manifests.py;
the pieces every workload shares from deploy/k8s_objects.py; the addresses from deploy/cluster.py.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import yaml

from deploy import capacity, images
from deploy.cluster import (
    CONFIG_DIGEST,
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
from deploy.k8s_objects import (
    CONTAINER_SECURITY,
    POD_SECURITY,
    SECRET,
    digest,
    disruption_budget,
    every_password_env,
    password_env,
    service,
    service_account,
    spread_constraints,
)
from deploy.network_policies import MONITORING_NAMESPACE, render_migrate_policy, render_part_policy
from deploy.pgbouncer import SESSION_DATABASE_SUFFIX
from libs.common.health import READY_TIMEOUT_SECONDS
from libs.contract.parts import GATEWAY, PARTS, ROOT, SEARCH, Part

K8S = ROOT / "deploy" / "k8s"
ALERTS = ROOT / "deploy" / "monitoring" / "alerts.yaml"
# gunicorn stops taking requests only after the preStop pause, so the endpoints controller and
# every kube-proxy have removed the pod by then; the grace period covers the pause plus gunicorn's
# graceful timeout, so in-flight requests finish before the kill.
PRE_STOP_SECONDS = 5
GRACEFUL_TIMEOUT_SECONDS = 20
TERMINATION_GRACE_SECONDS = 30
# The probe waits longer than /readyz's own bound on each check, so a slow check is "not ready"
# in the answer, never a probe timeout.
READY_PROBE_TIMEOUT_SECONDS = math.ceil(READY_TIMEOUT_SECONDS) + 1
MIN_REPLICAS, MAX_REPLICAS = 2, 10
MIGRATE_JOB_KEPT_SECONDS = 7 * 24 * 3600
# Each worker's database pool: connections to PgBouncer, which lends a role at most POOL_SIZE
# server connections per replica anyway (deploy/capacity.py counts them).
DB_POOL_MAX = 8


def database_env(part: Part) -> str:
    """Where a part's connections go: PgBouncer's transaction pool, and its session pool for a
    relay's lock (deploy/pgbouncer.py)."""
    bouncer = f"postgresql://{part.role}@{PGBOUNCER}:{PGBOUNCER_PORT}"
    env = f'            - {{name: DATABASE_URL, value: "{bouncer}/{DATABASE}"}}\n'
    if part.relays:
        env += f'            - {{name: SESSION_DATABASE_URL, value: "{bouncer}/{DATABASE}{SESSION_DATABASE_SUFFIX}"}}\n'
    return env + password_env(part)


PART_TEMPLATE = """\
# {name}: rendered by `python -m deploy.manifests` from libs/contract/parts.py; do not edit by hand.
{service_account}apiVersion: apps/v1
kind: Deployment
{metadata}spec:
  # No replicas: the HorizontalPodAutoscaler owns the count, and an apply must not reset it.
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
  strategy:
    rollingUpdate: {{maxUnavailable: 0, maxSurge: 1}}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis}}
      # Prometheus scrapes the metrics port, which only the monitoring namespace may reach.
      # The digest of the ConfigMap: changing a setting rolls the pods, which read it only at start.
      annotations: {{prometheus.io/scrape: "true", prometheus.io/port: "{metrics_port}", prometheus.io/path: /metrics,
        {digest_key}: "{config_digest}"}}
    spec:
      serviceAccountName: {name}
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: {grace}
      securityContext: {pod_security}
      # Replicas on different nodes and zones, so one failure takes at most a share of them.
{spread}      initContainers:
        # Migrations before serving: the pod starts only once its schema holds every migration of
        # this image (the migrate Job applies them); until then the old pods keep serving.
        - name: wait-for-migrations
          image: {image}
          command: ["python", "-m", "deploy.db", "wait", "{name}", "--timeout", "900"]
          env:
{database_env}          resources:
            requests: {{cpu: 50m, memory: 64Mi}}
            limits: {init_limits}
          securityContext: {container_security}
      containers:
        - name: {name}
          image: {image}
          # The metrics directory outlives a container restart: start it empty.
          command: ["sh", "-c", "rm -rf /tmp/metrics/* && exec gunicorn {app} --bind 0.0.0.0:{port}
            --worker-class aiohttp.GunicornUVLoopWebWorker --workers $(WORKERS) --graceful-timeout {graceful}
            --no-control-socket --config deploy/gunicorn_conf.py --log-config-json deploy/gunicorn-logging.json"]
          ports: [{{name: http, containerPort: {port}}}, {{name: metrics, containerPort: {metrics_port}}}]
          env:
            - {{name: WORKERS, value: "{workers}"}}
            - {{name: DB_POOL_MAX, value: "{db_pool_max}"}}
            - {{name: PROMETHEUS_MULTIPROC_DIR, value: /tmp/metrics}}
            - {{name: METRICS_BIND, value: "0.0.0.0:{metrics_port}"}}
{database_env}            - name: INTERNAL_TOKEN_SECRET
              valueFrom: {{secretKeyRef: {{name: {secret}, key: internal-token-secret}}}}
            # Also accepted while the internal secret is rotated (docs/operations.md).
            - name: INTERNAL_TOKEN_OVERLAP_SECRET
              valueFrom: {{secretKeyRef: {{name: {secret}, key: internal-token-overlap-secret, optional: true}}}}
{extra_env}          envFrom: [{{configMapRef: {{name: aivis-config}}}}]
          readinessProbe: {{httpGet: {{path: /readyz, port: http}}, periodSeconds: 5, timeoutSeconds: {ready_timeout},
            failureThreshold: 2}}
          livenessProbe: {{httpGet: {{path: /healthz, port: http}}, periodSeconds: 10, timeoutSeconds: 2,
            failureThreshold: 3}}
          lifecycle:
            preStop: {{exec: {{command: ["sleep", "{pre_stop}"]}}}}
{startup_probe}          resources:
            requests: {{cpu: 250m, memory: {memory_request}}}
            limits: {limits}
          securityContext: {container_security}
          volumeMounts: [{{name: metrics, mountPath: /tmp/metrics}}, {{name: tmp, mountPath: /tmp}}]
      volumes: [{{name: metrics, emptyDir: {{}}}}, {{name: tmp, emptyDir: {{}}}}]
---
{service}apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
{metadata}spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}
  minReplicas: {min_replicas}
  maxReplicas: {max_replicas}
  metrics:
    - type: Resource
      resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}
---
{disruption_budget}{replicas_service}{network_policy}"""

# Every ready search pod by address, so the gateway routes each organization to one of them.
SEARCH_REPLICAS_SERVICE = """\
apiVersion: v1
kind: Service
{metadata}spec:
  clusterIP: None
  selector: {{app.kubernetes.io/name: {name}}}
  ports: [{{name: http, port: {port}, targetPort: http}}]
---
"""

# Search loads its embedding model before it answers at all: give it minutes, not the liveness budget.
SEARCH_STARTUP_PROBE = """\
          startupProbe: {httpGet: {path: /healthz, port: http}, periodSeconds: 5, failureThreshold: 60}
"""

GATEWAY_ENV = """\
            - name: JWT_PRIVATE_KEY
              valueFrom: {secretKeyRef: {name: aivis-secrets, key: jwt-private-key}}
            # Public keys that still verify bearer tokens while the signing key is rotated.
            - name: JWT_VERIFY_KEYS
              valueFrom: {secretKeyRef: {name: aivis-secrets, key: jwt-verify-keys, optional: true}}
"""

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
"""


def render_part(part: Part, image: str, config_digest: str) -> str:
    heavy = part is SEARCH  # holds the embedding model and an organization's vectors in memory
    # Search sizes its indexing threads from its CPU quota (libs/common/cpu.py): give it one.
    limits = "{cpu: 2, memory: 2Gi}" if heavy else "{memory: 512Mi}"
    # Every container of search has a CPU limit (docs/operations.md accepts none only for the others).
    init_limits = "{cpu: 500m, memory: 128Mi}" if heavy else "{memory: 128Mi}"
    return PART_TEMPLATE.format(
        name=part.name,
        metadata=metadata(part.name, part=True),
        digest_key=CONFIG_DIGEST,
        config_digest=config_digest,
        service_account=service_account(part.name),
        spread=spread_constraints(part.name),
        service=service(part.name, "http", part.port),
        disruption_budget=disruption_budget(part.name),
        port=part.port,
        metrics_port=part.metrics_port,
        workers=part.workers,
        db_pool_max=DB_POOL_MAX,
        app=part.app,
        image=image,
        secret=SECRET,
        database_env=database_env(part),
        grace=TERMINATION_GRACE_SECONDS,
        graceful=GRACEFUL_TIMEOUT_SECONDS,
        pre_stop=PRE_STOP_SECONDS,
        ready_timeout=READY_PROBE_TIMEOUT_SECONDS,
        pod_security=POD_SECURITY,
        container_security=CONTAINER_SECURITY,
        extra_env=GATEWAY_ENV if part is GATEWAY else "",
        startup_probe=SEARCH_STARTUP_PROBE if heavy else "",
        memory_request="512Mi" if heavy else "192Mi",
        limits=limits,
        init_limits=init_limits,
        min_replicas=MIN_REPLICAS,
        max_replicas=MAX_REPLICAS,
        replicas_service=SEARCH_REPLICAS_SERVICE.format(
            metadata=metadata(SEARCH_REPLICAS), name=part.name, port=part.port
        )
        if heavy
        else "",
        network_policy=render_part_policy(part),
    )


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
    args = parser.parse_args(argv)
    release = images.load()
    if args.image or args.pgbouncer_image:
        try:
            release = images.Images(args.image or release.platform, args.pgbouncer_image or release.pgbouncer)
            images.save(release)
        except images.ImageError as exc:
            parser.error(str(exc))
    write(K8S, release)
    print(f"manifests written to {K8S} (image {release.platform})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The manifest of each part (deploy/k8s/<part>.yaml), rendered from libs/contract/parts.py: its
ServiceAccount, Deployment, Service, HorizontalPodAutoscaler, PodDisruptionBudget and
NetworkPolicy, and for search the headless Service naming its replicas. deploy/manifests.py
writes them with the rest."""

from __future__ import annotations

import math

from deploy.cluster import CONFIG_DIGEST, DATABASE, PGBOUNCER, PGBOUNCER_PORT, SEARCH_REPLICAS, metadata
from deploy.k8s_objects import (
    CONTAINER_SECURITY,
    POD_SECURITY,
    SECRET,
    disruption_budget,
    password_env,
    service,
    service_account,
    spread_constraints,
)
from deploy.network_policies import render_part_policy
from deploy.pgbouncer import SESSION_DATABASE_SUFFIX
from libs.common.health import READY_TIMEOUT_SECONDS
from libs.contract.parts import GATEWAY, SEARCH, Part

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

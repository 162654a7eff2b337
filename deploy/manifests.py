"""Kubernetes manifests for every part, rendered from libs/contract/parts.py into deploy/k8s/.

`python -m deploy.manifests` (or `make manifests`) writes them; a test fails when the committed
files differ from what this renders, so the manifests cannot drift from the parts list.
Network policies come from deploy/network_policies.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from deploy.network_policies import MONITORING_NAMESPACE, render_migrate_policy, render_part_policy
from libs.contract.parts import GATEWAY, PARTS, ROOT, SEARCH, Part

K8S = ROOT / "deploy" / "k8s"
IMAGE = "aivis-platform:0.1.0"
SECRET = "aivis-secrets"
# gunicorn stops taking requests only after the preStop pause, so the endpoints controller and
# every kube-proxy have removed the pod by then; the grace period covers the pause plus gunicorn's
# graceful timeout, so in-flight requests finish before the kill.
PRE_STOP_SECONDS = 5
GRACEFUL_TIMEOUT_SECONDS = 20
TERMINATION_GRACE_SECONDS = 30

POD_SECURITY = (
    "{runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: {type: RuntimeDefault}}"
)
CONTAINER_SECURITY = (
    "{allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]},"
    " seccompProfile: {type: RuntimeDefault}}"
)

PART_TEMPLATE = """\
# {name}: rendered by `python -m deploy.manifests` from libs/contract/parts.py; do not edit by hand.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
  strategy:
    rollingUpdate: {{maxUnavailable: 0, maxSurge: 1}}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis}}
      # Prometheus scrapes the metrics port, which only the monitoring namespace may reach.
      annotations: {{prometheus.io/scrape: "true", prometheus.io/port: "{metrics_port}", prometheus.io/path: /metrics}}
    spec:
      terminationGracePeriodSeconds: {grace}
      securityContext: {pod_security}
      initContainers:
        # Migrations before serving: the pod starts only once its schema holds every migration of
        # this image (the migrate Job applies them); until then the old pods keep serving.
        - name: wait-for-migrations
          image: {image}
          command: ["python", "-m", "deploy.db", "wait", "{name}", "--timeout", "900"]
          env:
            - name: DATABASE_URL
              valueFrom: {{secretKeyRef: {{name: {secret}, key: {name}-database-url}}}}
          resources:
            requests: {{cpu: 50m, memory: 64Mi}}
            limits: {{memory: 128Mi}}
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
            - {{name: PROMETHEUS_MULTIPROC_DIR, value: /tmp/metrics}}
            - {{name: METRICS_BIND, value: "0.0.0.0:{metrics_port}"}}
            - name: DATABASE_URL
              valueFrom: {{secretKeyRef: {{name: {secret}, key: {name}-database-url}}}}
            - name: INTERNAL_TOKEN_SECRET
              valueFrom: {{secretKeyRef: {{name: {secret}, key: internal-token-secret}}}}
            # Also accepted while the internal secret is rotated (docs/operations.md).
            - name: INTERNAL_TOKEN_OVERLAP_SECRET
              valueFrom: {{secretKeyRef: {{name: {secret}, key: internal-token-overlap-secret, optional: true}}}}
{extra_env}          envFrom: [{{configMapRef: {{name: aivis-config}}}}]
          readinessProbe: {{httpGet: {{path: /readyz, port: http}}, periodSeconds: 5, failureThreshold: 2}}
          livenessProbe: {{httpGet: {{path: /healthz, port: http}}, periodSeconds: 10, failureThreshold: 3}}
          lifecycle:
            preStop: {{exec: {{command: ["sleep", "{pre_stop}"]}}}}
{startup_probe}          resources:
            requests: {{cpu: 250m, memory: {memory_request}}}
            limits: {{memory: {memory_limit}}}
          securityContext: {container_security}
          volumeMounts: [{{name: metrics, mountPath: /tmp/metrics}}, {{name: tmp, mountPath: /tmp}}]
      volumes: [{{name: metrics, emptyDir: {{}}}}, {{name: tmp, emptyDir: {{}}}}]
---
apiVersion: v1
kind: Service
metadata:
  name: {name}
  labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis}}
spec:
  selector: {{app.kubernetes.io/name: {name}}}
  ports: [{{name: http, port: {port}, targetPort: http}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {name}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Resource
      resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {name}
spec:
  minAvailable: 1
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
---
{network_policy}"""

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
metadata:
  name: aivis-config
data:
  REDIS_URL: redis://redis:6379/0
  REDIS_PREFIX: "aivis:"
  LOG_LEVEL: INFO
  ENVIRONMENT: production
  # Where people reach the gateway (the OAuth issuer and every link it gives): required; set yours.
  PUBLIC_URL: https://api.example.com
  # The ingress controller's addresses, whose X-Forwarded-For names the client: set your cluster's.
  TRUSTED_PROXIES: ""
{urls}"""

MIGRATE_TEMPLATE = """\
# Applies every part's migrations; the parts' pods wait for it in their init container. Idempotent
# and safe to run twice at once. Deleted 10 minutes after it finishes, so the next
# `kubectl apply -k` creates it anew with the new image. Rendered by `python -m deploy.manifests`.
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  labels: {{app.kubernetes.io/name: migrate, app.kubernetes.io/part-of: aivis}}
spec:
  backoffLimit: 2
  activeDeadlineSeconds: 900
  ttlSecondsAfterFinished: 600
  template:
    metadata:
      labels: {{app.kubernetes.io/name: migrate, app.kubernetes.io/part-of: aivis}}
    spec:
      restartPolicy: Never
      securityContext: {pod_security}
      containers:
        - name: migrate
          image: {image}
          command: ["python", "-m", "deploy.db", "setup"]
          env:
            - name: DATABASE_URL
              valueFrom: {{secretKeyRef: {{name: {secret}, key: admin-database-url}}}}
          resources:
            requests: {{cpu: 100m, memory: 128Mi}}
            limits: {{memory: 256Mi}}
          securityContext: {container_security}
---
{network_policy}"""

SECRETS_TEMPLATE = """\
# Every secret a pod references. Create it from real values (never commit them), for example:
#   kubectl create secret generic aivis-secrets \\
#     --from-literal=internal-token-secret="$(openssl rand -base64 48)" \\
#     --from-file=jwt-private-key=ed25519.pem \\
#     --from-literal=admin-database-url=postgresql://admin:…@postgres/aivis \\
#     --from-literal=gateway-database-url=postgresql://aivis_gateway:…@postgres/aivis \\
#     … one <part>-database-url per part, each with that part's own role.
# An Ed25519 key: openssl genpkey -algorithm ed25519 -out ed25519.pem
# The migrate Job sets each role's password when <PART>_DB_PASSWORD is in its environment.
# internal-token-overlap-secret and jwt-verify-keys are optional: set only while rotating
# (docs/operations.md#rotating-the-internal-token-secret, #rotating-the-jwt-signing-key).
# Rendered by `python -m deploy.manifests`.
apiVersion: v1
kind: Secret
metadata:
  name: aivis-secrets
type: Opaque
stringData:
  internal-token-secret: replace-with-at-least-32-random-characters
  internal-token-overlap-secret: ""
  jwt-private-key: replace-with-an-ed25519-private-key-in-pem
  jwt-verify-keys: ""
  admin-database-url: postgresql://admin@postgres/aivis
{database_urls}"""

KUSTOMIZATION_TEMPLATE = """\
# Apply with `kubectl apply -k deploy/k8s` after creating the secret (see secrets.example.yaml).
# Prometheus must run in the namespace labelled kubernetes.io/metadata.name={monitoring}: only it
# may reach the metrics ports (docs/operations.md#metrics).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - config.yaml
  - migrate.yaml
{parts}"""


def render_part(part: Part) -> str:
    heavy = part is SEARCH  # holds the embedding model and an organization's vectors in memory
    return PART_TEMPLATE.format(
        name=part.name,
        port=part.port,
        metrics_port=part.metrics_port,
        workers=part.workers,
        app=part.app,
        image=IMAGE,
        secret=SECRET,
        grace=TERMINATION_GRACE_SECONDS,
        graceful=GRACEFUL_TIMEOUT_SECONDS,
        pre_stop=PRE_STOP_SECONDS,
        pod_security=POD_SECURITY,
        container_security=CONTAINER_SECURITY,
        extra_env=GATEWAY_ENV if part is GATEWAY else "",
        startup_probe=SEARCH_STARTUP_PROBE if heavy else "",
        memory_request="512Mi" if heavy else "192Mi",
        memory_limit="2Gi" if heavy else "512Mi",
        network_policy=render_part_policy(part),
    )


def render() -> dict[str, str]:
    """File name -> content of every manifest."""
    urls = "".join(f"  {part.name.upper()}_URL: http://{part.name}:{part.port}\n" for part in PARTS)
    database_urls = "".join(f"  {part.name}-database-url: postgresql://{part.role}@postgres/aivis\n" for part in PARTS)
    files = {
        "config.yaml": CONFIG_TEMPLATE.format(urls=urls),
        "migrate.yaml": MIGRATE_TEMPLATE.format(
            image=IMAGE,
            secret=SECRET,
            pod_security=POD_SECURITY,
            container_security=CONTAINER_SECURITY,
            network_policy=render_migrate_policy(),
        ),
        "secrets.example.yaml": SECRETS_TEMPLATE.format(database_urls=database_urls),
        "kustomization.yaml": KUSTOMIZATION_TEMPLATE.format(
            monitoring=MONITORING_NAMESPACE, parts="".join(f"  - {p.name}.yaml\n" for p in PARTS)
        ),
    }
    files.update({f"{part.name}.yaml": render_part(part) for part in PARTS})
    return files


def write(directory: Path = K8S) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in render().items():
        (directory / name).write_text(content)


if __name__ == "__main__":
    write()
    sys.exit(0)

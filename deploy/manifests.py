"""Kubernetes manifests for every part, rendered from deploy/parts.py into deploy/k8s/.

`python -m deploy.manifests` (or `make manifests`) writes them; a test fails when the committed
files differ from what this renders, so the manifests cannot drift from the parts list.
"""

from __future__ import annotations

import sys
from pathlib import Path

from deploy.parts import GATEWAY, PARTS, ROOT, Part

K8S = ROOT / "deploy" / "k8s"
IMAGE = "aivis-platform:0.1.0"

PART_TEMPLATE = """\
# {name}: rendered by `python -m deploy.manifests` from deploy/parts.py; do not edit by hand.
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
      annotations: {{prometheus.io/scrape: "true", prometheus.io/port: "{port}", prometheus.io/path: /metrics}}
    spec:
      terminationGracePeriodSeconds: 30
      securityContext: {{runAsNonRoot: true, runAsUser: 10001}}
      containers:
        - name: {name}
          image: {image}
          # The metrics directory outlives a container restart: start it empty.
          command: ["sh", "-c", "rm -rf /tmp/metrics/* && exec gunicorn {app} --bind 0.0.0.0:{port}
            --worker-class aiohttp.GunicornUVLoopWebWorker --workers $(WORKERS) --graceful-timeout 20
            --no-control-socket --log-config-json deploy/gunicorn-logging.json"]
          ports: [{{name: http, containerPort: {port}}}]
          env:
            - {{name: WORKERS, value: "{workers}"}}
            - {{name: PROMETHEUS_MULTIPROC_DIR, value: /tmp/metrics}}
            - name: DATABASE_URL
              valueFrom: {{secretKeyRef: {{name: aivis-secrets, key: {name}-database-url}}}}
            - name: INTERNAL_TOKEN_SECRET
              valueFrom: {{secretKeyRef: {{name: aivis-secrets, key: internal-token-secret}}}}
{extra_env}          envFrom: [{{configMapRef: {{name: aivis-config}}}}]
          readinessProbe: {{httpGet: {{path: /readyz, port: http}}, periodSeconds: 5, failureThreshold: 2}}
          livenessProbe: {{httpGet: {{path: /healthz, port: http}}, periodSeconds: 10, failureThreshold: 3}}
          resources:
            requests: {{cpu: 250m, memory: {memory_request}}}
            limits: {{memory: {memory_limit}}}
          securityContext: {{allowPrivilegeEscalation: false, readOnlyRootFilesystem: true}}
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
"""

GATEWAY_ENV = """\
            - name: JWT_PRIVATE_KEY
              valueFrom: {secretKeyRef: {name: aivis-secrets, key: jwt-private-key}}
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
{urls}"""

MIGRATE_TEMPLATE = """\
# Run before each rollout: creates the roles and schemas and applies every part's migrations.
# Idempotent and safe to run twice at once. Rendered by `python -m deploy.manifests`.
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      securityContext: {{runAsNonRoot: true, runAsUser: 10001}}
      containers:
        - name: migrate
          image: {image}
          command: ["python", "-m", "deploy.db", "setup"]
          env:
            - name: DATABASE_URL
              valueFrom: {{secretKeyRef: {{name: aivis-secrets, key: admin-database-url}}}}
"""

KUSTOMIZATION_TEMPLATE = """\
# Apply with `kubectl apply -k deploy/k8s` after creating the secret (see secrets.example.yaml).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - config.yaml
  - migrate.yaml
{parts}"""


def render_part(part: Part) -> str:
    heavy = part.name == "search"  # holds the embedding model and an organization's vectors in memory
    return PART_TEMPLATE.format(
        name=part.name,
        port=part.port,
        workers=part.workers,
        app=part.app,
        image=IMAGE,
        extra_env=GATEWAY_ENV if part is GATEWAY else "",
        memory_request="512Mi" if heavy else "192Mi",
        memory_limit="2Gi" if heavy else "512Mi",
    )


def render() -> dict[str, str]:
    """File name -> content of every manifest."""
    urls = "".join(f"  {part.name.upper()}_URL: http://{part.name}:{part.port}\n" for part in PARTS)
    files = {
        "config.yaml": CONFIG_TEMPLATE.format(urls=urls),
        "migrate.yaml": MIGRATE_TEMPLATE.format(image=IMAGE),
        "kustomization.yaml": KUSTOMIZATION_TEMPLATE.format(parts="".join(f"  - {p.name}.yaml\n" for p in PARTS)),
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

"""The manifests around the parts: the namespace, PgBouncer and the Ingress (deploy/cluster.py
names their addresses). Rendered with the parts' by `python -m deploy.manifests`."""

from __future__ import annotations

from deploy.cluster import NAMESPACE, PGBOUNCER, PGBOUNCER_PORT, PUBLIC_HOST, metadata
from deploy.images import Images
from deploy.network_policies import render_pgbouncer_policy
from libs.contract.parts import GATEWAY, PARTS

NAMESPACE_TEMPLATE = """\
# The platform's namespace; pods in it must meet the "restricted" Pod Security Standard.
apiVersion: v1
kind: Namespace
metadata:
  name: {namespace}
  labels: {{pod-security.kubernetes.io/enforce: restricted, app.kubernetes.io/part-of: aivis}}
"""

PGBOUNCER_TEMPLATE = """\
# PgBouncer between the parts and PostgreSQL, transaction pooling: thousands of pooled client
# connections become at most {replicas} x max_db_connections server connections
# (docs/operations.md, "Capacity"). Its configuration is written by the platform's image from
# the ConfigMap and the parts' passwords (deploy/pgbouncer.py). Rendered by `python -m deploy.manifests`.
apiVersion: v1
kind: ServiceAccount
{metadata}automountServiceAccountToken: false
---
apiVersion: apps/v1
kind: Deployment
{metadata}spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
  strategy:
    rollingUpdate: {{maxUnavailable: 0, maxSurge: 1}}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis}}
    spec:
      serviceAccountName: {name}
      automountServiceAccountToken: false
      securityContext: {pod_security}
      topologySpreadConstraints:
        - {{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway,
           labelSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}, matchLabelKeys: [pod-template-hash]}}
        - {{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway,
           labelSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}, matchLabelKeys: [pod-template-hash]}}
      initContainers:
        - name: configure
          image: {platform}
          command: ["python", "-m", "deploy.pgbouncer", "/etc/pgbouncer"]
          env:
{passwords}          envFrom: [{{configMapRef: {{name: aivis-config}}}}]
          resources:
            requests: {{cpu: 50m, memory: 64Mi}}
            limits: {{memory: 128Mi}}
          securityContext: {container_security}
          volumeMounts: [{{name: config, mountPath: /etc/pgbouncer}}]
      containers:
        - name: {name}
          image: {image}
          command: ["pgbouncer", "/etc/pgbouncer/pgbouncer.ini"]
          ports: [{{name: postgres, containerPort: {port}}}]
          readinessProbe: {{tcpSocket: {{port: postgres}}, periodSeconds: 5, timeoutSeconds: 2}}
          livenessProbe: {{tcpSocket: {{port: postgres}}, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3}}
          resources:
            requests: {{cpu: 100m, memory: 64Mi}}
            limits: {{memory: 256Mi}}
          securityContext: {container_security}
          volumeMounts: [{{name: config, mountPath: /etc/pgbouncer, readOnly: true}}]
      volumes: [{{name: config, emptyDir: {{medium: Memory}}}}]
---
apiVersion: v1
kind: Service
{metadata}spec:
  selector: {{app.kubernetes.io/name: {name}}}
  ports: [{{name: postgres, port: {port}, targetPort: postgres}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
{metadata}spec:
  minAvailable: 1
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
---
{network_policy}"""

INGRESS_TEMPLATE = """\
# An example Ingress: TLS at the controller for {host}, everything to the gateway. PUBLIC_URL in
# config.yaml names the same host. Create the certificate's secret first (or let cert-manager
# do it: annotate with cert-manager.io/cluster-issuer). Rendered by `python -m deploy.manifests`.
apiVersion: networking.k8s.io/v1
kind: Ingress
{metadata}spec:
  ingressClassName: nginx
  tls:
    - hosts: [{host}]
      secretName: aivis-tls
  rules:
    - host: {host}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {{service: {{name: {gateway}, port: {{name: http}}}}}}
"""

PGBOUNCER_REPLICAS = 2


def render_cluster(release: Images, *, pod_security: str, container_security: str) -> dict[str, str]:
    passwords = "".join(
        f"            - name: {part.name.upper()}_DB_PASSWORD\n"
        f"              valueFrom: {{secretKeyRef: {{name: aivis-secrets, key: {part.name}-db-password}}}}\n"
        for part in PARTS
    )
    return {
        "namespace.yaml": NAMESPACE_TEMPLATE.format(namespace=NAMESPACE),
        "pgbouncer.yaml": PGBOUNCER_TEMPLATE.format(
            name=PGBOUNCER,
            metadata=metadata(PGBOUNCER),
            replicas=PGBOUNCER_REPLICAS,
            platform=release.platform,
            image=release.pgbouncer,
            port=PGBOUNCER_PORT,
            passwords=passwords,
            pod_security=pod_security,
            container_security=container_security,
            network_policy=render_pgbouncer_policy(),
        ),
        "ingress.yaml": INGRESS_TEMPLATE.format(metadata=metadata("aivis"), host=PUBLIC_HOST, gateway=GATEWAY.name),
    }

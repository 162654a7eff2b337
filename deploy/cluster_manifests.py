"""The manifests around the parts: the namespace, PgBouncer and the Ingress (deploy/cluster.py
names their addresses). Rendered with the parts' by `python -m deploy.manifests`."""

from __future__ import annotations

from deploy.cluster import NAMESPACE, PGBOUNCER, PGBOUNCER_PORT, PUBLIC_HOST, metadata
from deploy.images import Images
from deploy.k8s_objects import (
    CONTAINER_SECURITY,
    POD_SECURITY,
    disruption_budget,
    every_password_env,
    service,
    service_account,
    spread_constraints,
)
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
{service_account}apiVersion: apps/v1
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
{spread}      initContainers:
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
{service}{disruption_budget}{network_policy}"""

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


def render_cluster(release: Images) -> dict[str, str]:
    return {
        "namespace.yaml": NAMESPACE_TEMPLATE.format(namespace=NAMESPACE),
        "pgbouncer.yaml": PGBOUNCER_TEMPLATE.format(
            name=PGBOUNCER,
            metadata=metadata(PGBOUNCER),
            service_account=service_account(PGBOUNCER),
            spread=spread_constraints(PGBOUNCER),
            replicas=PGBOUNCER_REPLICAS,
            platform=release.platform,
            image=release.pgbouncer,
            port=PGBOUNCER_PORT,
            passwords=every_password_env(PARTS),
            pod_security=POD_SECURITY,
            container_security=CONTAINER_SECURITY,
            service=service(PGBOUNCER, "postgres", PGBOUNCER_PORT),
            disruption_budget=disruption_budget(PGBOUNCER),
            network_policy=render_pgbouncer_policy(),
        ),
        "ingress.yaml": INGRESS_TEMPLATE.format(metadata=metadata("aivis"), host=PUBLIC_HOST, gateway=GATEWAY.name),
    }

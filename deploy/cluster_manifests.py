"""The manifests around the parts: the namespace, PgBouncer and the Ingress (deploy/cluster.py
names their addresses). Rendered with the parts' by `python -m deploy.manifests`."""

from __future__ import annotations

from deploy.cluster import (
    CONFIG_DIGEST,
    NAMESPACE,
    PGBOUNCER,
    PGBOUNCER_METRICS_PORT,
    PGBOUNCER_PORT,
    PUBLIC_HOST,
    metadata,
)
from deploy.images import Images
from deploy.k8s_objects import (
    CONTAINER_SECURITY,
    POD_SECURITY,
    digest,
    disruption_budget,
    every_password_env,
    service,
    service_account,
    spread_constraints,
)
from deploy.network_policies import render_pgbouncer_policy
from deploy.pgbouncer import SETTINGS as PGBOUNCER_SETTINGS
from deploy.pgbouncer import STATS_PASSWORD_FILE, STATS_USER
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
# PgBouncer between the parts and PostgreSQL: thousands of pooled client connections become at
# most {replicas} x (the transaction pool's max_db_connections + the relays' session pool's)
# server connections (docs/operations.md, "Capacity"; deploy/capacity.py). Its configuration is
# written by the platform's image from the ConfigMap and the parts' passwords (deploy/pgbouncer.py).
# Rendered by `python -m deploy.manifests`.
{service_account}apiVersion: apps/v1
kind: Deployment
{metadata}spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
  # One replica replaced at a time and none added: a third PgBouncer during a rollout would
  # open a third share of PostgreSQL's connections (deploy/capacity.py).
  strategy:
    rollingUpdate: {{maxUnavailable: 1, maxSurge: 0}}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis}}
      # Prometheus scrapes the metrics sidecar, which only the monitoring namespace may reach.
      # The digest of the settings PgBouncer's configuration is written from (not the others: a
      # restart of PgBouncer cuts every part's connections).
      annotations: {{prometheus.io/scrape: "true", prometheus.io/port: "{metrics_port}", prometheus.io/path: /metrics,
        {digest_key}: "{config_digest}"}}
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
        # PgBouncer's pools and waiting clients for Prometheus (deploy/pgbouncer_exporter.py).
        - name: metrics
          image: {platform}
          command: ["python", "-m", "deploy.pgbouncer_exporter", "--listen", "0.0.0.0:{metrics_port}",
            "--pgbouncer", "127.0.0.1:{port}", "--user", "{stats_user}",
            "--password-file", "/etc/pgbouncer/{stats_file}"]
          ports: [{{name: metrics, containerPort: {metrics_port}}}]
          readinessProbe: {{tcpSocket: {{port: metrics}}, periodSeconds: 10, timeoutSeconds: 2}}
          # A scrape, as Prometheus makes it: a wedged exporter is restarted. Its wait for PgBouncer
          # (connect_timeout 5 s) fits in the timeout, so PgBouncer down is `pgbouncer_up 0`, not this.
          livenessProbe: {{httpGet: {{path: /metrics, port: metrics}}, periodSeconds: 30, timeoutSeconds: 10,
            failureThreshold: 3}}
          resources:
            requests: {{cpu: 20m, memory: 48Mi}}
            limits: {{memory: 96Mi}}
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


def render_cluster(release: Images, settings: dict[str, str]) -> dict[str, str]:
    """The namespace, PgBouncer and the Ingress; `settings` is the ConfigMap's data."""
    read = {key: settings[key] for key in PGBOUNCER_SETTINGS}
    return {
        "namespace.yaml": NAMESPACE_TEMPLATE.format(namespace=NAMESPACE),
        "pgbouncer.yaml": PGBOUNCER_TEMPLATE.format(
            name=PGBOUNCER,
            metadata=metadata(PGBOUNCER),
            digest_key=CONFIG_DIGEST,
            config_digest=digest(read),
            service_account=service_account(PGBOUNCER),
            spread=spread_constraints(PGBOUNCER),
            replicas=PGBOUNCER_REPLICAS,
            platform=release.platform,
            image=release.pgbouncer,
            port=PGBOUNCER_PORT,
            metrics_port=PGBOUNCER_METRICS_PORT,
            stats_user=STATS_USER,
            stats_file=STATS_PASSWORD_FILE,
            passwords=every_password_env(PARTS),
            pod_security=POD_SECURITY,
            container_security=CONTAINER_SECURITY,
            service=service(PGBOUNCER, "postgres", PGBOUNCER_PORT),
            disruption_budget=disruption_budget(PGBOUNCER),
            network_policy=render_pgbouncer_policy(),
        ),
        "ingress.yaml": INGRESS_TEMPLATE.format(metadata=metadata("aivis"), host=PUBLIC_HOST, gateway=GATEWAY.name),
    }

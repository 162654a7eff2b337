"""Caddy in front of the edge (deploy/k8s/caddy.yaml): TLS for every verified App domain, with
certificates obtained on demand once the edge says a hostname is one of them (`/tls/ask`).

Its Caddyfile is deploy/caddy/Caddyfile itself, carried in a ConfigMap. Caddy runs unprivileged
on 8080 and 8443 (no capability to bind below 1024); its LoadBalancer Service takes 80 and 443 and
keeps the client's address (`externalTrafficPolicy: Local`), which Caddy passes on in
X-Forwarded-For. Certificates and the ACME account live in `/data`, a volume every replica
shares: Caddy's replicas coordinate issuance through it (docs/operations.md, "Serving App domains").
"""

from __future__ import annotations

from deploy.cluster import CADDY, CADDY_DATA, NAMESPACE, metadata
from deploy.images import Images
from deploy.k8s_objects import (
    CONTAINER_SECURITY,
    POD_SECURITY,
    digest,
    disruption_budget,
    service_account,
    spread_constraints,
)
from deploy.network_policies import render_caddy_policy
from libs.contract.parts import EDGE, ROOT

CADDYFILE = ROOT / "deploy" / "caddy" / "Caddyfile"
HTTP_PORT, HTTPS_PORT = 8080, 8443
REPLICAS = 2
# The ACME account's contact: replace with an address that reads Let's Encrypt's expiry notices.
ACME_EMAIL = "tls@example.com"

CADDY_TEMPLATE = """\
# Caddy: TLS for the Apps' domains in front of the edge (deploy/caddy_manifests.py).
# Rendered by `python -m deploy.manifests`.
apiVersion: v1
kind: ConfigMap
{config_metadata}data:
  Caddyfile: |
{caddyfile}---
{service_account}apiVersion: v1
kind: PersistentVolumeClaim
{data_metadata}spec:
  # Shared by every replica: a ReadWriteMany storage class (NFS, EFS, Filestore), or REPLICAS 1
  # with ReadWriteOnce.
  accessModes: [ReadWriteMany]
  resources:
    requests: {{storage: 1Gi}}
---
apiVersion: apps/v1
kind: Deployment
{metadata}spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/part-of: aivis}}
      # The Caddyfile's digest: a changed Caddyfile rolls the pods, which read it only at start.
      annotations: {{aivis/caddyfile-digest: "{caddyfile_digest}"}}
    spec:
      serviceAccountName: {name}
      automountServiceAccountToken: false
      securityContext: {pod_security}
{spread}      containers:
        - name: {name}
          image: {image}
          command: ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
          ports: [{{name: http, containerPort: {http_port}}}, {{name: https, containerPort: {https_port}}}]
          env:
            - {{name: EDGE_ADDRESS, value: "{edge}.{namespace}.svc:{edge_port}"}}
            - {{name: ACME_EMAIL, value: "{acme_email}"}}
            - {{name: HTTP_PORT, value: "{http_port}"}}
            - {{name: HTTPS_PORT, value: "{https_port}"}}
            - {{name: XDG_DATA_HOME, value: /data}}
            - {{name: XDG_CONFIG_HOME, value: /config}}
          readinessProbe: {{tcpSocket: {{port: https}}, periodSeconds: 5, timeoutSeconds: 2}}
          livenessProbe: {{tcpSocket: {{port: https}}, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3}}
          resources:
            requests: {{cpu: 250m, memory: 128Mi}}
            limits: {{memory: 512Mi}}
          securityContext: {container_security}
          volumeMounts: [{{name: caddyfile, mountPath: /etc/caddy, readOnly: true}}, {{name: data, mountPath: /data}},
            {{name: config, mountPath: /config}}]
      volumes: [{{name: caddyfile, configMap: {{name: {name}}}}},
        {{name: data, persistentVolumeClaim: {{claimName: {data}}}}}, {{name: config, emptyDir: {{}}}}]
---
apiVersion: v1
kind: Service
{metadata}spec:
  type: LoadBalancer
  # The client's own address reaches Caddy (and, in X-Forwarded-For, the edge's request log).
  externalTrafficPolicy: Local
  selector: {{app.kubernetes.io/name: {name}}}
  ports: [{{name: http, port: 80, targetPort: http}}, {{name: https, port: 443, targetPort: https}}]
---
{disruption_budget}{network_policy}"""


def render_caddy(release: Images) -> str:
    caddyfile = CADDYFILE.read_text()
    indented = "".join(f"    {line}\n" if line else "\n" for line in caddyfile.splitlines())
    return CADDY_TEMPLATE.format(
        name=CADDY,
        metadata=metadata(CADDY),
        config_metadata=metadata(CADDY),
        data_metadata=metadata(CADDY_DATA),
        data=CADDY_DATA,
        caddyfile=indented,
        caddyfile_digest=digest({"Caddyfile": caddyfile}),
        service_account=service_account(CADDY),
        spread=spread_constraints(CADDY),
        replicas=REPLICAS,
        image=release.caddy,
        namespace=NAMESPACE,
        edge=EDGE.name,
        edge_port=EDGE.port,
        acme_email=ACME_EMAIL,
        http_port=HTTP_PORT,
        https_port=HTTPS_PORT,
        pod_security=POD_SECURITY,
        container_security=CONTAINER_SECURITY,
        disruption_budget=disruption_budget(CADDY),
        network_policy=render_caddy_policy(),
    )

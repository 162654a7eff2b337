# PgBouncer from Debian's package, for running the manifests where no registry is reachable
# (tests/deploy/test_rollout.py builds it with `python -m deploy.local_image`); a cluster pulls
# the image deploy/images.json names. Its configuration comes from the pod's init container.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbouncer \
 && rm -rf /var/lib/apt/lists/*
USER 10001

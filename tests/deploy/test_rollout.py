"""A first rollout in real containers, run from the manifests themselves onto a fresh PostgreSQL
with no roles that asks every login for a password.

The platform's image is built from deploy/Dockerfile (on a Debian base made locally with
debootstrap and kept between runs: deploy/local_image.py), and podman runs what deploy/k8s/
says, container by container: two migrate Jobs at once, then PgBouncer's pod (its configuration
step, PgBouncer, its metrics sidecar), then every Deployment's init container and server, each
with the manifest's command, environment (ConfigMap, a Secret made from secrets.example.yaml
with generated values, `$(VAR)` references), user, read-only root, dropped capabilities and
limits. Then the operator's commands as the runbook types them, inside the containers: a key made
by `python -m gateway.admin` in the gateway's, requests through the gateway with it, a reindex,
a store check; and PgBouncer's metrics.

What a cluster does that this cannot (printed when it runs):
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg2
import pytest

from deploy import images, local_image, pgbouncer
from deploy.cluster import (
    NAMESPACE,
    PGBOUNCER,
    PGBOUNCER_METRICS_PORT,
    PGBOUNCER_PORT,
    POSTGRES_HOST,
    POSTGRES_PORT,
    SEARCH_REPLICAS,
)
from deploy.manifests import ALERTS, K8S
from libs.contract.parts import GATEWAY, PARTS, SEARCH
from libs.local.ports import free_port
from libs.local.stores import _as_postgres_user, forget_prefix, start_postgres, stop_postgres
from tests.conftest import REDIS_URL
from tests.deploy.cluster import Cluster, generated_secret, load_objects
from tests.deploy.containers import Pod, logs, remove, run_podman

NOT_HONOURED = (
    "images: local builds of deploy/Dockerfile and deploy/pgbouncer.Dockerfile (Debian's PgBouncer) on a"
    " debootstrapped Debian base stand for the references of deploy/images.json (no registry here)",
    "cluster DNS and Services: every container shares the host's network; each Service's name and port"
    " map to a free port on 127.0.0.1",
    "Redis: this machine's, under a key prefix of its own",
    "probes: readiness is awaited by polling /readyz (PgBouncer: its port); liveness and startup probes are not run",
    "resource requests: nothing schedules by them (memory limits and search's CPU limit are enforced)",
    "network policies, service accounts, seccomp profiles (podman's default one applies): not enforced",
    "autoscalers, disruption budgets, topology spread, the Ingress: not applied",
)
__doc__ = (__doc__ or "") + "".join(f"- {line}\n" for line in NOT_HONOURED)

STEP_TIMEOUT = 240.0
TOOLS = ("podman", "runc", "buildah", "debootstrap", "initdb", "pg_ctl")


@contextlib.contextmanager
def fresh_postgres(directory: Path, port: int, password: str) -> Iterator[None]:
    """A PostgreSQL of its own, with no roles but its superuser, asking every TCP login for a
    password (as a cluster's database does), so a role without one cannot log in."""
    prefix = _as_postgres_user()
    data = directory / "data"
    data.mkdir(parents=True)
    pwfile = directory / "pw"
    pwfile.write_text(password + "\n")
    if prefix:
        for path in (directory, data, pwfile):
            shutil.chown(path, "postgres")
    initdb = [
        *prefix,
        "initdb",
        "-D",
        str(data),
        "-U",
        "postgres",
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        f"--pwfile={pwfile}",
    ]
    subprocess.run(initdb, check=True, stdout=subprocess.DEVNULL)
    start_postgres(data, port)
    try:
        yield
    finally:
        stop_postgres(data)


def wait_until(check: Any, what: str, seconds: float = STEP_TIMEOUT, *, diagnose: Any = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if check():
                return
        time.sleep(0.5)
    pytest.fail(f"{what} within {seconds:g}s: {diagnose() if diagnose else ''}")


def ready(url: str) -> bool:
    with urllib.request.urlopen(f"{url}/readyz", timeout=5) as answer:
        return bool(answer.status == 200)


def listening(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1):
        return True


def finish(process: subprocess.Popen[str], what: str) -> str:
    try:
        output, _ = process.communicate(timeout=STEP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"{what} did not finish within {STEP_TIMEOUT:g}s")
    assert process.returncode == 0, f"{what} failed ({process.returncode}): {output[-3000:]}"
    return output


@pytest.fixture(scope="module")
def built() -> local_image.Built:
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    assert not missing, f"{missing} not installed: `make test` installs them"
    return local_image.build()


@pytest.fixture
def scratch() -> Iterator[Path]:
    """Where the pods' volumes and PostgreSQL live: reachable by the containers' user and by
    `postgres` (pytest's own temporary directories are closed to other users)."""
    with tempfile.TemporaryDirectory(prefix="rollout-") as name:
        os.chmod(name, 0o755)
        yield Path(name)


@pytest.fixture
def cluster(scratch: Path) -> Iterator[Cluster]:
    admin_password = secrets.token_hex(16)
    cluster = Cluster(load_objects(K8S), generated_secret(K8S / "secrets.example.yaml", admin_password))
    postgres_port, pgbouncer_port, redis = free_port(), free_port(), REDIS_URL.split("//")[1].split("/")[0]
    cluster.addresses.update(
        {
            f"{POSTGRES_HOST}:{POSTGRES_PORT}": f"127.0.0.1:{postgres_port}",
            f"{PGBOUNCER}:{PGBOUNCER_PORT}": f"127.0.0.1:{pgbouncer_port}",
            "redis:6379": redis,
        }
    )
    cluster.overrides.update(
        {
            "POSTGRES_HOST": "127.0.0.1",
            "POSTGRES_PORT": str(postgres_port),
            "PGBOUNCER_PORT": str(pgbouncer_port),
            "REDIS_PREFIX": f"rollout-{uuid.uuid4().hex[:8]}:",
        }
    )
    # PgBouncer's sidecar reaches it over the pod's loopback and serves on the metrics port.
    cluster.rewrites[f"127.0.0.1:{PGBOUNCER_PORT}"] = f"127.0.0.1:{pgbouncer_port}"
    cluster.rewrites[f"0.0.0.0:{PGBOUNCER_METRICS_PORT}"] = f"127.0.0.1:{free_port()}"
    for part in PARTS:
        port = free_port()
        cluster.addresses[f"{part.name}:{part.port}"] = f"127.0.0.1:{port}"
        if part is SEARCH:  # the headless Service of the search pods: here, the one search
            cluster.addresses[f"{SEARCH_REPLICAS}:{part.port}"] = f"127.0.0.1:{port}"
        cluster.rewrites[f"0.0.0.0:{part.port}"] = f"127.0.0.1:{port}"
        cluster.rewrites[f"0.0.0.0:{part.metrics_port}"] = f"127.0.0.1:{free_port()}"
    with fresh_postgres(scratch / "postgres", postgres_port, admin_password):
        yield cluster
    forget_prefix(REDIS_URL, cluster.overrides["REDIS_PREFIX"])


@pytest.mark.long(seconds=240)  # a fresh machine's base image by debootstrap included
# The images are built in this test's setup: on a fresh machine beside the other workers the base
# (debootstrap) and the image took 546 s, more than the suite's 600 s per test with the rollout.
@pytest.mark.timeout(1200)
def test_a_first_rollout_in_containers_comes_up_from_the_manifests_and_serves(
    built: local_image.Built, cluster: Cluster, scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with capsys.disabled():
        if built.base_seconds is not None:
            base = local_image.BASE_IMAGE
            print(f"\nrollout test: base image {base} made in {built.base_seconds:.0f}s (kept for next runs)")
        print(
            f"\nrollout test: images built in {built.image_seconds:.0f}s; not honoured here:\n"
            + "".join(f"  - {line}\n" for line in NOT_HONOURED)
        )
    assert {item["metadata"].get("namespace") for item in cluster.objects if item["kind"] != "Namespace"} == {NAMESPACE}
    release = images.load()
    local = {release.platform: local_image.PLATFORM_IMAGE, release.pgbouncer: local_image.PGBOUNCER_IMAGE}
    prefix = f"aivis-rollout-{uuid.uuid4().hex[:8]}"
    pods: list[Pod] = []

    def pod(kind: str, name: str, copy: str = "") -> Pod:
        made = Pod(f"{prefix}-{name}{copy}", cluster.pod(kind, name), scratch / f"{name}{copy}", local)
        pods.append(made)
        return made

    def run(one: Pod, container: dict[str, Any]) -> subprocess.Popen[str]:
        env = cluster.environment(container)
        return one.run_to_completion(container, env, cluster.command(container, env))

    def start(one: Pod, container: dict[str, Any]) -> str:
        env = cluster.environment(container)
        return one.start(container, env, cluster.command(container, env))

    started = time.monotonic()
    try:
        # 1. The migrate Job, twice at once (an apply racing another), on a server without roles.
        jobs = [pod("Job", "migrate", copy) for copy in ("-a", "-b")]
        running = [run(job, job.spec["containers"][0]) for job in jobs]
        for process in running:
            finish(process, "a migrate Job")

        # 2. PgBouncer: its configuration step, then PgBouncer and its metrics sidecar.
        bouncer = pod("Deployment", PGBOUNCER)
        (configure,) = bouncer.spec["initContainers"]
        finish(run(bouncer, configure), "PgBouncer's configuration step")
        containers = {container["name"]: start(bouncer, container) for container in bouncer.spec["containers"]}
        port = int(cluster.overrides["PGBOUNCER_PORT"])
        wait_until(lambda: listening(port), "PgBouncer did not listen", diagnose=lambda: logs(containers[PGBOUNCER]))

        # 3. Every Deployment: the init containers (each waits for its schema) together, then the
        #    servers together, as a rollout's pods come up.
        parts = {part: pod("Deployment", part.name) for part in PARTS}
        inits = {part: [run(one, init) for init in one.spec["initContainers"]] for part, one in parts.items()}
        for part, processes in inits.items():
            for process in processes:
                finish(process, f"{part.name}'s init container")
        servers = {part: start(one, one.spec["containers"][0]) for part, one in parts.items()}
        for part, name in servers.items():
            url = f"http://{cluster.addresses[f'{part.name}:{part.port}']}"
            wait_until(lambda url=url: ready(url), f"{part.name} was not ready", diagnose=lambda name=name: logs(name))
        with capsys.disabled():
            print(f"rollout test: every container up in {time.monotonic() - started:.0f}s")

        # 4. The operator's commands, typed as the runbook has them, inside the containers.
        def exec_in(part_name: str, *args: str) -> str:
            done = run_podman("exec", servers[next(p for p in PARTS if p.name == part_name)], *args)
            assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
            return done.stdout

        org = json.loads(
            exec_in(
                "gateway", "python", "-m", "gateway.admin", "--json", "create-org", "--slug", "first", "--name", "First"
            )
        )
        key = json.loads(
            exec_in(
                "gateway",
                "python",
                "-m",
                "gateway.admin",
                "--json",
                "create-key",
                "--org",
                "first",
                "--name",
                "rollout",
                "--scopes",
                "all",
            )
        )
        gateway_url = f"http://{cluster.addresses[f'{GATEWAY.name}:{GATEWAY.port}']}"
        request = urllib.request.Request(
            f"{gateway_url}/api/v1/agent-simulation/runs", headers={"x-api-key": key["key"]}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200
            assert json.loads(answer.read())["ok"] is True
        # Search through the replicas the gateway resolved from the headless Service's name.
        search = urllib.request.Request(
            f"{gateway_url}/api/v1/content/search/{org['id']}",
            data=json.dumps({"query": "first steps"}).encode(),
            headers={"x-api-key": key["key"], "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(search, timeout=30) as answer:
            assert answer.status == 200
            assert json.loads(answer.read())["ok"] is True
        assert "PONG" in exec_in("gateway", "python", "-m", "deploy.ping", "redis")
        assert "answered as aivis_content" in exec_in("content", "python", "-m", "deploy.ping", "database")
        exec_in("search", "python", "-m", "services.search.admin", "reindex", "--org", org["id"])

        # 5. PgBouncer's metrics, as Prometheus scrapes them from the sidecar.
        metrics_url = f"http://{cluster.rewrites[f'0.0.0.0:{PGBOUNCER_METRICS_PORT}']}/metrics"
        with urllib.request.urlopen(metrics_url, timeout=10) as answer:
            metrics = answer.read().decode()
        assert re.search(r"^pgbouncer_up 1\.0$", metrics, re.M), metrics
        assert re.search(r'^pgbouncer_pool_clients_waiting\{database="aivis",user="aivis_gateway"\} ', metrics, re.M)
        assert 'pgbouncer_database_max_server_connections{database="aivis_sessions"}' in metrics
        monitoring = ALERTS.read_text() + ALERTS.with_name("dashboard.json").read_text()
        for name in set(re.findall(r"\bpgbouncer_[a-z_]+", monitoring)):  # what the alerts and the dashboard read
            assert re.search(rf"^{name}[{{ ]", metrics, re.M), name

        # 6. Every line each part logged is one JSON object (docs/operations.md, "Logs").
        for part, name in servers.items():
            for line in logs(name, everything=True).splitlines():
                try:
                    json.loads(line)
                except ValueError:
                    pytest.fail(f"{part.name} logged a line that is not JSON: {line!r}")

        # 7. The relays hold their locks through PgBouncer's session pool: one session a lock.
        admin_dsn = cluster.environment(jobs[0].spec["containers"][0])["DATABASE_URL"]
        outboxes = sum(pgbouncer.outboxes(part) for part in PARTS)
        with contextlib.closing(psycopg2.connect(admin_dsn)) as conn, conn.cursor() as cur:
            conn.autocommit = True  # each look at pg_stat_activity a fresh one

            def locks_held() -> bool:
                cur.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")
                return bool(cur.fetchone()[0] == outboxes)

            wait_until(locks_held, f"the {outboxes} outbox locks were not held")
            cur.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'relay %%'")
            assert cur.fetchone()[0] <= pgbouncer.session_connections()
            # The parts logged in with their own roles: the roles have passwords.
            cur.execute("SELECT rolname FROM pg_authid WHERE rolname LIKE 'aivis_%%' AND rolpassword IS NOT NULL")
            assert {row[0] for row in cur.fetchall()} == {part.role for part in PARTS}

            # 8. PgBouncer restarted (the failover step's restart): the parts reconnect by
            #    themselves and the relays take their locks again, none left to a gone session.
            restarted = run_podman("restart", "--time", "5", containers[PGBOUNCER])
            assert restarted.returncode == 0, restarted.stderr
            wait_until(lambda: listening(port), "PgBouncer did not listen again")

            def answers() -> bool:
                try:
                    with urllib.request.urlopen(request, timeout=30) as answer:
                        return bool(answer.status == 200)
                except urllib.error.HTTPError:
                    return False

            wait_until(answers, "the gateway did not answer again after PgBouncer's restart", 90)
            wait_until(locks_held, f"the {outboxes} outbox locks were not taken again", 90)
    finally:
        remove([name for one in pods for name in one.started])

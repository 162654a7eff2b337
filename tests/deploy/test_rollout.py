"""A first rollout, run from the manifests themselves onto a fresh PostgreSQL with no roles.

What runs is what deploy/k8s/ says: the migrate Job's container, then PgBouncer's pod, then every
Deployment's init container and main container, each with exactly its command and environment
(ConfigMap, a Secret made from secrets.example.yaml with generated values, `$(VAR)` references),
and finally a request through the gateway with a key made by the operator's command.

What a single machine cannot honour, and how this stands in for it (printed when it runs):
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg2
import pytest

from deploy.cluster import NAMESPACE, PGBOUNCER, PGBOUNCER_PORT, POSTGRES_HOST, POSTGRES_PORT, SEARCH_REPLICAS
from deploy.manifests import K8S
from libs.contract.parts import GATEWAY, PARTS, ROOT, SEARCH
from libs.local.stores import _as_postgres_user, forget_prefix, start_postgres, stop_postgres
from tests.conftest import REDIS_URL, free_port
from tests.deploy.cluster import Cluster, generated_secret, load_objects

NOT_HONOURED = (
    "images: every container runs this checkout's code with the test's Python on PATH",
    "cluster DNS: Service names and ports map to free ports on 127.0.0.1",
    "Redis: this machine's, under a key prefix of its own",
    "volumes: each emptyDir is a temporary directory",
    "probes: readiness is awaited by polling /readyz once the process listens; liveness and startup probes are not run",
    "network policies, security contexts, resource limits, service accounts: not enforced",
    "autoscalers, disruption budgets, topology spread, the Ingress: not applied",
)
__doc__ = (__doc__ or "") + "".join(f"- {line}\n" for line in NOT_HONOURED)

BIN = str(Path(sys.executable).parent)
STEP_TIMEOUT = 120.0
TOOLS = ("initdb", "pg_ctl", "pgbouncer")


def image_environment(env: dict[str, str]) -> dict[str, str]:
    """What the image adds to a container's environment: where its programs are."""
    return {"PATH": f"{BIN}:/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", **env}


def run_to_completion(cluster: Cluster, container: dict[str, Any], what: str) -> str:
    env = cluster.environment(container)
    try:
        done = subprocess.run(
            cluster.command(container, env),
            env=image_environment(env),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{what} did not finish within {STEP_TIMEOUT:g}s: {exc.stderr!r}")
    assert done.returncode == 0, f"{what} failed ({done.returncode}): {done.stderr[-3000:]}"
    return done.stdout


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
        shutil.chown(directory, "postgres")
        shutil.chown(data, "postgres")
        shutil.chown(pwfile, "postgres")
    subprocess.run(
        [
            *prefix,
            "initdb",
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={pwfile}",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    start_postgres(data, port)
    try:
        yield
    finally:
        stop_postgres(data)


def wait_ready(url: str, process: subprocess.Popen[bytes], what: str, log: Path, seconds: float = STEP_TIMEOUT) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{what} exited with {process.returncode}: {log.read_text()[-3000:]}"
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{url}/readyz", timeout=5) as answer:
                if answer.status == 200:
                    return
        time.sleep(0.5)
    pytest.fail(f"{what} was not ready within {seconds:g}s: {log.read_text()[-3000:]}")


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A directory the PostgreSQL and PgBouncer of the test can reach when they run as `postgres`
    (pytest's own temporary directories are closed to other users)."""
    with tempfile.TemporaryDirectory(prefix="rollout-") as name:
        os.chmod(name, 0o755)
        yield Path(name)


@pytest.fixture
def cluster(scratch: Path) -> Iterator[Cluster]:
    admin_password = secrets.token_hex(16)
    objects = load_objects(K8S)
    cluster = Cluster(objects, generated_secret(K8S / "secrets.example.yaml", admin_password))
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


def test_a_first_rollout_comes_up_from_the_manifests_and_serves(cluster: Cluster, scratch: Path, capsys):
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    assert not missing, f"{missing} not installed: `make test` installs them"
    with capsys.disabled():
        print("\nrollout test, not honoured here:\n" + "".join(f"  - {line}\n" for line in NOT_HONOURED))
    assert {item["metadata"].get("namespace") for item in cluster.objects if item["kind"] != "Namespace"} == {NAMESPACE}
    started: list[subprocess.Popen[bytes]] = []
    with contextlib.ExitStack() as running:
        running.callback(_stop, started)
        # 1. The migrate Job, against a database that has no roles yet.
        (job,) = cluster.pod("Job", "migrate")["containers"]
        run_to_completion(cluster, job, "the migrate Job")

        # 2. PgBouncer: its configuration step, then PgBouncer itself (not as root, as in its image).
        pgbouncer = cluster.pod("Deployment", PGBOUNCER)
        config = scratch / "pgbouncer"
        config.mkdir()
        cluster.rewrites["/etc/pgbouncer"] = str(config)
        (configure,) = pgbouncer["initContainers"]
        run_to_completion(cluster, configure, "PgBouncer's configuration step")
        prefix = _as_postgres_user()
        if prefix:
            for path in (config, *config.iterdir()):
                shutil.chown(path, "postgres")
        (bouncer,) = pgbouncer["containers"]
        command = cluster.command(bouncer, {})
        log = running.enter_context((scratch / "pgbouncer.log").open("wb"))
        process = subprocess.Popen([*prefix, *command], stdout=log, stderr=subprocess.STDOUT)
        started.append(process)
        port = int(cluster.overrides["PGBOUNCER_PORT"])
        _wait_for_port(port, process, "PgBouncer")

        # 3. Every Deployment: its init container (waits for its schema), then its server; the
        #    servers start together, as a rollout's pods do.
        servers = {}
        for part in PARTS:
            spec = cluster.pod("Deployment", part.name)
            for init in spec["initContainers"]:
                run_to_completion(cluster, init, f"{part.name}'s {init['name']}")
            (container,) = spec["containers"]
            (scratch / f"metrics-{part.name}").mkdir()
            cluster.rewrites["/tmp/metrics"] = str(scratch / f"metrics-{part.name}")
            env = cluster.environment(container)
            output = running.enter_context((scratch / f"{part.name}.log").open("wb"))
            servers[part] = subprocess.Popen(
                cluster.command(container, env),
                env=image_environment(env),
                cwd=ROOT,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
            started.append(servers[part])
        for part, server in servers.items():
            log = scratch / f"{part.name}.log"
            wait_ready(f"http://{cluster.addresses[f'{part.name}:{part.port}']}", server, part.name, log)

        # 4. The operator's commands, with the gateway's environment, and a request through it.
        (gateway,) = cluster.pod("Deployment", GATEWAY.name)["containers"]
        admin_env = image_environment(cluster.environment(gateway))

        def admin(*args: str) -> dict[str, Any]:
            done = subprocess.run(
                [sys.executable, "-m", "gateway.admin", "--json", *args],
                env=admin_env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=STEP_TIMEOUT,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            result: dict[str, Any] = json.loads(done.stdout)
            return result

        org = admin("create-org", "--slug", "first", "--name", "First")
        key = admin("create-key", "--org", "first", "--name", "rollout", "--scopes", "all")
        gateway_url = f"http://{cluster.addresses[f'{GATEWAY.name}:{GATEWAY.port}']}"
        request = urllib.request.Request(
            f"{gateway_url}/api/v1/agent-simulation/runs", headers={"x-api-key": key["key"]}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200
            body = json.loads(answer.read())
        assert body["ok"] is True
        # Search through the replicas the gateway resolved from the headless Service's name.
        search = urllib.request.Request(
            f"{gateway_url}/api/v1/content/search/{org['id']}",
            data=json.dumps({"query": "first steps"}).encode(),
            headers={"x-api-key": key["key"], "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(search, timeout=30) as answer:
            assert answer.status == 200
            assert json.loads(answer.read())["ok"] is True

    # The parts logged in with their own roles, through PgBouncer: the roles have passwords.
    admin_dsn = cluster.environment(job)["DATABASE_URL"]
    with contextlib.closing(psycopg2.connect(admin_dsn)) as conn, conn.cursor() as cur:
        cur.execute("SELECT rolname FROM pg_authid WHERE rolname LIKE 'aivis_%%' AND rolpassword IS NOT NULL")
        assert {row[0] for row in cur.fetchall()} == {part.role for part in PARTS}


def _wait_for_port(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    import socket

    deadline = time.monotonic() + STEP_TIMEOUT
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{what} exited with {process.returncode}"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.2)
    pytest.fail(f"{what} did not listen within {STEP_TIMEOUT:g}s")


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """Stop them all at once (each finishes its graceful shutdown meanwhile)."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

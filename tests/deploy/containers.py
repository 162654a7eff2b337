"""A pod's containers run by podman as the kubelet would run them, from the parsed manifests:
the image, command, environment, user, read-only root, dropped capabilities, no privilege
escalation, memory and CPU limits, and each emptyDir as a directory shared by the pod's
containers. Used by tests/deploy/test_rollout.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deploy.local_image import podman_env

QUANTITY = re.compile(r"^(?P<number>[0-9.]+)(?P<unit>Ki|Mi|Gi|k|M|G)?$")
PODMAN_UNITS = {None: "b", "Ki": "k", "Mi": "m", "Gi": "g", "k": "k", "M": "m", "G": "g"}


def memory(quantity: str) -> str:
    """A Kubernetes memory quantity as podman's --memory takes it (512Mi -> 512m)."""
    match = QUANTITY.match(str(quantity))
    assert match, f"unsupported memory quantity {quantity!r}"
    return f"{match['number']}{PODMAN_UNITS[match['unit']]}"


def cpus(quantity: str | int) -> str:
    """A Kubernetes CPU quantity as podman's --cpus takes it (500m -> 0.5)."""
    text = str(quantity)
    return str(int(text[:-1]) / 1000) if text.endswith("m") else text


def run_podman(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["podman", *args], env=podman_env(), capture_output=True, text=True, timeout=timeout, check=False
    )


@dataclass
class Pod:
    """One pod's containers on this machine: `name` prefixes theirs, `volumes` holds its emptyDirs."""

    name: str
    spec: dict[str, Any]
    volumes: Path
    # The manifest's image reference -> the local build that stands for it.
    images: Mapping[str, str]
    started: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for volume in self.spec.get("volumes", []):
            assert "emptyDir" in volume, f"{self.name}: only emptyDir volumes are run here"
            path = self.volumes / volume["name"]
            path.mkdir(parents=True)
            os.chown(path, 10001, 10001)  # fsGroup: the pod's user owns its volumes

    def arguments(self, container: dict[str, Any], env: Mapping[str, str], command: list[str]) -> list[str]:
        """`podman run` arguments for one container of the pod."""
        pod, own = self.spec.get("securityContext", {}), container.get("securityContext", {})
        args = ["--network", "host", "--name", f"{self.name}-{container['name']}"]
        user, group = own.get("runAsUser", pod.get("runAsUser")), own.get("runAsGroup", pod.get("runAsGroup"))
        if user is not None:
            args += ["--user", f"{user}:{group if group is not None else user}"]
        if own.get("readOnlyRootFilesystem"):
            # Kubernetes adds no tmpfs of its own on /tmp, /run or /var/tmp: neither may podman.
            args += ["--read-only", "--read-only-tmpfs=false"]
        for capability in own.get("capabilities", {}).get("drop", []):
            args += ["--cap-drop", capability]
        if own.get("allowPrivilegeEscalation") is False:
            args += ["--security-opt", "no-new-privileges"]
        limits = container.get("resources", {}).get("limits", {})
        if "memory" in limits:
            args += ["--memory", memory(limits["memory"])]
        if "cpu" in limits:
            args += ["--cpus", cpus(limits["cpu"])]
        for mount in container.get("volumeMounts", []):
            options = ":ro" if mount.get("readOnly") else ""
            args += ["--volume", f"{self.volumes / mount['name']}:{mount['mountPath']}{options}"]
        for key, value in env.items():
            args += ["--env", f"{key}={value}"]
        image = self.images[container["image"]]
        return [*args, "--entrypoint", json.dumps(command), image]

    def run_to_completion(
        self, container: dict[str, Any], env: Mapping[str, str], command: list[str]
    ) -> subprocess.Popen[str]:
        """Start a container that must finish (an init container, a Job's); wait on the process."""
        self.started.append(f"{self.name}-{container['name']}")
        return subprocess.Popen(
            ["podman", "run", "--rm", *self.arguments(container, env, command)],
            env=podman_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def start(self, container: dict[str, Any], env: Mapping[str, str], command: list[str]) -> str:
        """Start a long-running container in the background; returns its name."""
        name = f"{self.name}-{container['name']}"
        self.started.append(name)
        done = run_podman("run", "--detach", *self.arguments(container, env, command))
        assert done.returncode == 0, f"{name} did not start: {done.stderr}"
        return name


def logs(name: str, *, everything: bool = False) -> str:
    """What a container wrote (stdout and stderr), its end only unless `everything`."""
    done = run_podman("logs", name)
    output = done.stdout + done.stderr
    return output if everything else output[-4000:]


def remove(names: list[str]) -> None:
    """Stop and remove the containers this test started, by name (a stop lets gunicorn finish),
    and check none is left behind."""
    if not names:
        return
    run_podman("stop", "--ignore", "--time", "10", *names, timeout=180)
    for _ in range(3):
        run_podman("rm", "--force", "--ignore", *names, timeout=120)
        listed = run_podman("ps", "--all", "--format", "{{.Names}}").stdout.split()
        left = sorted(set(names) & set(listed))
        if not left:
            return
    raise AssertionError(f"podman did not remove {left}")

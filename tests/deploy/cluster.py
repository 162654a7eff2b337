"""What the manifests run, read from deploy/k8s/ as a cluster would: each container's command and
environment (ConfigMap, Secret, `$(VAR)` references), and the cluster's names and ports mapped
onto this machine. Used by tests/deploy/test_rollout.py; its parser of the manifests' documents
(`parsed`, once for each content) by every test of this folder."""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from deploy.cluster import DATABASE

REFERENCE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


@functools.cache
def parsed(content: str) -> tuple[Any, ...]:
    """A manifest's YAML documents, parsed once a session for each content the tests render (read,
    never changed, by the tests that share them)."""
    return tuple(yaml.load_all(content, Loader=yaml.CSafeLoader))


def load_objects(directory: Path) -> list[dict[str, Any]]:
    return [
        document
        for path in sorted(directory.glob("*.yaml"))
        if path.name not in {"kustomization.yaml", "secrets.example.yaml"}
        for document in parsed(path.read_text())
    ]


def generated_secret(example: Path, admin_password: str) -> dict[str, str]:
    """The example secret's keys with fresh values, as an operator creates them."""
    keys = yaml.safe_load(example.read_text())["stringData"]
    values: dict[str, str] = {}
    for key in keys:
        if key.endswith("-db-password"):
            values[key] = secrets.token_hex(24)
        elif key == "internal-token-secret":
            values[key] = secrets.token_urlsafe(48)
        elif key == "jwt-private-key":
            pem = Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
            values[key] = pem.decode()
        elif key == "admin-database-url":
            values[key] = f"postgresql://postgres:{admin_password}@postgres:5432/{DATABASE}"
        else:
            values[key] = ""  # optional, set only while rotating
    return values


def expand(text: str, env: Mapping[str, str]) -> str:
    """Kubernetes' `$(VAR)` references: replaced when VAR is defined, left as written otherwise."""
    return REFERENCE.sub(lambda match: env.get(match[1], match[0]), text)


@dataclass
class Cluster:
    objects: list[dict[str, Any]]
    secret: dict[str, str]
    # "host:port" of a Service (or store) -> where it answers on this machine.
    addresses: dict[str, str] = field(default_factory=dict)
    # Text of a container's own (a volume's mountPath, a listening address) -> this machine's.
    rewrites: dict[str, str] = field(default_factory=dict)
    # Settings that must differ on a shared machine (a Redis key prefix of its own).
    overrides: dict[str, str] = field(default_factory=dict)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [item for item in self.objects if item["kind"] == kind]

    def named(self, kind: str, name: str) -> dict[str, Any]:
        (found,) = [item for item in self.of_kind(kind) if item["metadata"]["name"] == name]
        return found

    def pod(self, kind: str, name: str) -> dict[str, Any]:
        spec: dict[str, Any] = self.named(kind, name)["spec"]["template"]["spec"]
        return spec

    def _local(self, text: str) -> str:
        for address, local in self.addresses.items():
            text = text.replace(f"@{address}/", f"@{local}/").replace(f"//{address}", f"//{local}")
        for own, local in self.rewrites.items():
            text = text.replace(own, local)
        return text

    def environment(self, container: dict[str, Any]) -> dict[str, str]:
        """The container's environment as the kubelet builds it, then localised."""
        env: dict[str, str] = {}
        for source in container.get("envFrom", []):
            config = self.named("ConfigMap", source["configMapRef"]["name"])
            env.update({key: str(value) for key, value in config["data"].items()})
        for item in container.get("env", []):
            if "value" in item:
                env[item["name"]] = expand(str(item["value"]), env)
                continue
            ref = item["valueFrom"]["secretKeyRef"]
            if ref["key"] in self.secret:
                env[item["name"]] = self.secret[ref["key"]]
            else:
                assert ref.get("optional"), f"{container['name']}: the secret has no {ref['key']}"
        env.update({key: value for key, value in self.overrides.items() if key in env})
        return {key: self._local(value) for key, value in env.items()}

    def command(self, container: dict[str, Any], env: Mapping[str, str]) -> list[str]:
        return [self._local(expand(part, env)) for part in container["command"]]

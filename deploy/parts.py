"""The parts of the platform: what each one serves, owns and needs. One list, used by the
database bootstrap, the local runner, the tests and the Kubernetes manifests' generator."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROLE_PREFIX = "aivis_"


@dataclass(frozen=True)
class Part:
    name: str
    schema: str
    app: str  # gunicorn's "module:factory"
    port: int
    migrations: Path
    # gunicorn workers per process group (locally) and per pod (Kubernetes); scale out with replicas.
    workers: int = 1
    extensions: tuple[str, ...] = ()

    @property
    def role(self) -> str:
        """The database role of this part: it owns its schema and has no right on any other."""
        return ROLE_PREFIX + self.name


GATEWAY = Part("gateway", "identity", "gateway.app:app_factory", 8080, ROOT / "gateway/migrations", workers=2)
CONTENT = Part(
    "content",
    "content",
    "services.content.app:app_factory",
    8081,
    ROOT / "services/content/migrations",
    extensions=("pg_trgm",),
)
APPS = Part("apps", "apps", "services.apps.app:app_factory", 8082, ROOT / "services/apps/migrations")
SIMULATIONS = Part(
    "simulations", "simulations", "services.simulations.app:app_factory", 8085, ROOT / "services/simulations/migrations"
)

PARTS: tuple[Part, ...] = (GATEWAY, CONTENT, APPS, SIMULATIONS)
SERVICES: tuple[Part, ...] = tuple(part for part in PARTS if part is not GATEWAY)


def by_name(name: str) -> Part:
    for part in PARTS:
        if part.name == name:
            return part
    raise KeyError(name)

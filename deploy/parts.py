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
    # "gateway" or "services.<name>": its app.py has `app_factory`, its migrations/ the SQL.
    package: str
    # Where the part answers on a single machine; a deployment sets <PART>_URL instead.
    port: int
    # gunicorn workers per process group (locally) and per pod (Kubernetes); scale out with replicas.
    workers: int = 1
    extensions: tuple[str, ...] = ()

    @property
    def app(self) -> str:
        """gunicorn's "module:factory"."""
        return f"{self.package}.app:app_factory"

    @property
    def migrations(self) -> Path:
        return ROOT.joinpath(*self.package.split("."), "migrations")

    @property
    def role(self) -> str:
        """The database role of this part: it owns its schema and has no right on any other."""
        return ROLE_PREFIX + self.name


GATEWAY = Part("gateway", "identity", "gateway", 8080, workers=2)
CONTENT = Part("content", "content", "services.content", 8081, extensions=("pg_trgm",))
APPS = Part("apps", "apps", "services.apps", 8082)
PERSONAS = Part("personas", "personas", "services.personas", 8083)
# One worker a pod: each worker holds its organizations' vectors in memory; scale with replicas.
SEARCH = Part("search", "search", "services.search", 8084, extensions=("btree_gin",))
SIMULATIONS = Part("simulations", "simulations", "services.simulations", 8085)

PARTS: tuple[Part, ...] = (GATEWAY, CONTENT, APPS, PERSONAS, SEARCH, SIMULATIONS)
SERVICES: tuple[Part, ...] = tuple(part for part in PARTS if part is not GATEWAY)
BY_NAME: dict[str, Part] = {part.name: part for part in PARTS}

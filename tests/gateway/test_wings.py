"""The gateway's wings stand apart: the edge (gateway/edge: the route table and every request's
checks), identity (gateway/identity: keys, sessions, tokens, OAuth) and the dashboard's pages
(gateway/dashboard). The dashboard is mounted by the application that assembles the gateway
(gateway/app.py) and imported by nothing else of it: it uses the core, never the other way round."""

from __future__ import annotations

from pathlib import Path

from libs.contract.parts import ROOT
from tests.common.test_boundaries import imported_modules

GATEWAY = ROOT / "gateway"
DASHBOARD = GATEWAY / "dashboard"
# The one module that puts the wings together.
ASSEMBLY = GATEWAY / "app.py"


def imports_the_dashboard(path: Path) -> bool:
    return any(name == "gateway.dashboard" or name.startswith("gateway.dashboard.") for name in imported_modules(path))


def test_the_gateway_shows_its_wings():
    assert {path.name for path in GATEWAY.iterdir() if (path / "__init__.py").is_file()} >= {
        "edge",
        "identity",
        "dashboard",
    }
    assert (GATEWAY / "identity" / "auth").is_dir() and (GATEWAY / "identity" / "oauth").is_dir()


def test_nothing_of_the_gateways_core_imports_the_dashboard():
    core = [path for path in GATEWAY.rglob("*.py") if DASHBOARD not in path.parents and path != ASSEMBLY]
    assert GATEWAY / "edge" / "proxy.py" in core and GATEWAY / "audit.py" in core
    assert [str(path.relative_to(ROOT)) for path in core if imports_the_dashboard(path)] == []
    assert imports_the_dashboard(ASSEMBLY)

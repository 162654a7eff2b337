"""The gateway's wings stand apart: the dashboard's pages are mounted by the application that
assembles the gateway (gateway/app.py) and imported by nothing else of it; the dashboard uses the
core (its checks, its identity), never the other way round."""

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


def test_nothing_of_the_gateways_core_imports_the_dashboard():
    core = [path for path in GATEWAY.rglob("*.py") if DASHBOARD not in path.parents and path != ASSEMBLY]
    assert GATEWAY / "proxy.py" in core and GATEWAY / "audit.py" in core
    assert [str(path.relative_to(ROOT)) for path in core if imports_the_dashboard(path)] == []
    assert imports_the_dashboard(ASSEMBLY)

"""Every `Endpoint` the client declares: the top-level ones of each module of the package."""

from __future__ import annotations

import functools
import importlib
import pkgutil

import aivis
from aivis.api import Endpoint


@functools.cache
def declared() -> dict[str, Endpoint]:
    """Each endpoint by where it is declared (`aivis.commands.apps.APP`)."""
    found: dict[str, Endpoint] = {}
    for module_info in pkgutil.walk_packages(aivis.__path__, "aivis."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, Endpoint):
                found.setdefault(f"{module_info.name}.{name}", value)
    return found


def declared_endpoints() -> frozenset[Endpoint]:
    return frozenset(declared().values())

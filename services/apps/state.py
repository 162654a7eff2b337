"""Typed application state of the apps service."""

from __future__ import annotations

from aiohttp import web

from services.apps.edge import EdgeProvider
from services.apps.verification import TxtChecker

EDGE: web.AppKey[EdgeProvider] = web.AppKey("edge_provider")
TXT_CHECKER: web.AppKey[TxtChecker] = web.AppKey("txt_checker")

"""Typed application state of the apps service."""

from __future__ import annotations

from aiohttp import web

from services.apps.edge import EdgeProvider

EDGE: web.AppKey[EdgeProvider] = web.AppKey("edge_provider")

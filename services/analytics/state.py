"""Typed application state of the analytics part."""

from __future__ import annotations

from aiohttp import web

from libs.contract.clients import PersonasClient
from services.analytics.analyser import Analyser

ANALYSER: web.AppKey[Analyser] = web.AppKey("analyser")
PERSONAS: web.AppKey[PersonasClient] = web.AppKey("personas_client")

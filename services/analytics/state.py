"""Typed application state of the analytics part."""

from __future__ import annotations

from aiohttp import web

from libs.common.clients import PersonasClient, TrafficClient
from services.analytics.analyser import Analyser
from services.analytics.runner import Runner

ANALYSER: web.AppKey[Analyser] = web.AppKey("analyser")
PERSONAS: web.AppKey[PersonasClient] = web.AppKey("personas_client")
RUNNER: web.AppKey[Runner] = web.AppKey("runner")
TRAFFIC: web.AppKey[TrafficClient] = web.AppKey("traffic_client")

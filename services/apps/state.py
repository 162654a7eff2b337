"""Typed application state of the apps service."""

from __future__ import annotations

from aiohttp import web

from services.apps.edge import EdgeProvider
from services.apps.text_cache import TextCache
from services.apps.verification import TxtChecker

EDGE: web.AppKey[EdgeProvider] = web.AppKey("edge_provider")
# The last llms.txt and sitemap.xml written for recently read Apps.
TEXTS: web.AppKey[TextCache] = web.AppKey("agent_texts")
TXT_CHECKER: web.AppKey[TxtChecker] = web.AppKey("txt_checker")

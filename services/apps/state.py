"""Typed application state of the apps service."""

from __future__ import annotations

from aiohttp import web

from services.apps.edge import EdgeProvider
from services.apps.text_cache import KeptByVersion, TextCache
from services.apps.verification import TxtChecker

EDGE: web.AppKey[EdgeProvider] = web.AppKey("edge_provider")
# The last llms.txt and sitemap.xml written for recently read Apps.
TEXTS: web.AppKey[TextCache] = web.AppKey("agent_texts")
# How many of an App's routed documents are among its products' route candidates, by (app,
# products, status), with the version each was counted at (services/apps/candidate_listing.py).
ROUTED_COUNTS: web.AppKey[KeptByVersion[int]] = web.AppKey("routed_counts")
TXT_CHECKER: web.AppKey[TxtChecker] = web.AppKey("txt_checker")

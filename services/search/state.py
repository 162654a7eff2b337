"""Typed application state of the search service."""

from __future__ import annotations

from aiohttp import web

from services.search.searching import Searcher

SEARCHER: web.AppKey[Searcher] = web.AppKey("searcher", Searcher)

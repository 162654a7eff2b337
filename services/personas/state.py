"""Typed application state of the personas service."""

from __future__ import annotations

from aiohttp import web

from services.personas.generator import SuggestionGenerator

# The generator behind regeneration; create_app sets the default, a test may set another
# before the app starts.
GENERATOR: web.AppKey[SuggestionGenerator] = web.AppKey("suggestion_generator")

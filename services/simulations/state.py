"""Typed application state of the simulations service."""

from __future__ import annotations

import asyncio

from aiohttp import web

# Set when this process queues runs, so its worker takes them without waiting for its next look.
WAKE: web.AppKey[asyncio.Event] = web.AppKey("simulation_wake")

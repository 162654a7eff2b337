"""Typed application state of the AI-traffic service."""

from __future__ import annotations

from aiohttp import web

from services.traffic.catalog import Catalog
from services.traffic.hosts import HostDirectory
from services.traffic.recording import Recorder
from services.traffic.store import TrafficStore
from services.traffic.store_clickhouse import Engine

CATALOG: web.AppKey[Catalog] = web.AppKey("catalog", Catalog)
HOSTS: web.AppKey[HostDirectory] = web.AppKey("hosts", HostDirectory)
RECORDER: web.AppKey[Recorder] = web.AppKey("recorder", Recorder)
STORE: web.AppKey[TrafficStore] = web.AppKey("store")
CLICKHOUSE_ENGINE: web.AppKey[Engine | None] = web.AppKey("clickhouse_engine")

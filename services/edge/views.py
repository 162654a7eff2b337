"""Every request to the edge: the hostname decides the App, the path what is answered.

1. The `Host` names a verified domain of a live App (services/edge/hosts.py, store.py), or the
   answer is a 404 page; a Host that names no host is a 400, one that is the edge's own name (an
   address, a single label) reaches its own endpoints (`/healthz`, `/readyz`, `/tls/ask`).
2. A `redirect` domain answers 308 to its origin, with the same path and query.
3. A `web` domain answers, for GET and HEAD: `/llms.txt`, `/llms-full.txt`, `/sitemap.xml`,
   `/robots.txt`, and each routed path's published document, as HTML or as markdown (`Accept:
   text/markdown`, or the path with `.md`); a document with `redirectToUrl` is a 308 there.
4. Anything else goes to the domain's origin (services/edge/origin.py), or is a 404 page.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Awaitable, Callable
from functools import lru_cache

from aiohttp import web
from aiohttp.typedefs import Handler

from libs.common import health
from libs.common.client_address import client_address
from libs.common.clients import EdgeAppsClient
from libs.common.errors import ApiError
from libs.common.http_client import upstream_error
from libs.common.state import SETTINGS
from libs.contract.validators import normalize_route_path
from services.edge.hosts import BadHost, app_hostname, parse_host
from services.edge.origin import OriginRefused, Origins, origin_base
from services.edge.pages import TEXT, Answer, Page, made, refusal, robots_txt, routed_page
from services.edge.settings import EdgeSettings
from services.edge.store import DOMAIN, MISSING, Domain, Site, Store

log = logging.getLogger(__name__)

APPS: web.AppKey[EdgeAppsClient] = web.AppKey("edge_apps")
STORE: web.AppKey[Store] = web.AppKey("edge_store")
ORIGINS: web.AppKey[Origins] = web.AppKey("edge_origins")

FILES = ("/llms.txt", "/llms-full.txt", "/sitemap.xml")
READS = ("GET", "HEAD")

NO_APP = refusal(404, "Not found", "No site is served at this address.")
NO_PAGE = refusal(404, "Not found", "There is no page at this address.")
NOT_ALLOWED = Answer(405, b"", (("Allow", "GET, HEAD"), ("Cache-Control", "no-store")))

# What is worked out from a request's text is kept for the next request with the same text: a
# warm answer repeats no parsing. Bounded, so hostile variety only evicts.
known_host = lru_cache(maxsize=4096)(parse_host)


@lru_cache(maxsize=4096)
def route_key(raw_path: str) -> str:
    """The canonical route path (libs/contract/validators.py) of a request's path, its query left out."""
    return normalize_route_path(raw_path.partition("?")[0])


@lru_cache(maxsize=1024)
def wants_markdown(accept: str) -> bool:
    """Whether `Accept` prefers `text/markdown` to `text/html` (at least as much, and at all)."""
    weights: dict[str, float] = {}
    for item in accept.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[media.lower()] = weight
    markdown = weights.get("text/markdown", 0.0)
    return markdown > 0 and markdown >= weights.get("text/html", 0.0)


def not_modified(named: str, etag: str) -> bool:
    """Whether an `If-None-Match` value names `etag` (weakly compared, RFC 9110 13.1.2)."""
    return any(tag.strip() in (etag, f"W/{etag}", "*") for tag in named.split(","))


def send(request: web.Request, answer: Answer) -> web.Response:
    """`answer` as a response, or a 304 when the request's If-None-Match names its ETag."""
    named = request.headers.get("If-None-Match")
    if named is not None and answer.status == 200 and answer.etag is not None and not_modified(named, answer.etag):
        return web.Response(status=304, headers=answer.not_modified_headers)
    return web.Response(status=answer.status, body=answer.body, headers=answer.response_headers)


def cache_control(settings: EdgeSettings) -> str:
    return f"public, max-age={settings.max_age_seconds}, stale-while-revalidate={settings.stale_seconds}"


async def own_endpoint(request: web.Request) -> web.StreamResponse:
    """What the edge answers under its own name: health, and Caddy's on-demand TLS question."""
    path = request.path
    if path == "/healthz":
        return await health.healthz(request)
    if path == "/readyz":
        return await health.readyz(request)
    if path == "/tls/ask":
        hostname = app_hostname(request.query.get("domain", ""))
        found = hostname is not None and await request.app[STORE].domain(hostname) is not None
        return web.Response(status=200 if found else 404, text="ok" if found else "not a verified App domain")
    return send(request, NO_PAGE)


def _file(request: web.Request, site: Site, name: str) -> Callable[[], Awaitable[Answer]]:
    store, apps, settings = request.app[STORE], request.app[APPS], request.app[SETTINGS]

    async def load() -> Answer:
        answer = await apps.file(store.caller(site.organization_id), name, site.app_id)
        if answer.status != 200:
            raise upstream_error(answer)
        headers = [("Content-Type", answer.headers.get("Content-Type", TEXT))]
        if "ETag" in answer.headers:
            headers.append(("ETag", answer.headers["ETag"]))
        return Answer(200, answer.body, tuple(headers)).cacheable(cache_control(settings))

    return load


def _robots(request: web.Request, site: Site) -> Callable[[], Awaitable[Answer]]:
    settings = request.app[SETTINGS]

    async def make() -> Answer:
        return made(robots_txt(site.config, site.base_url), TEXT).cacheable(cache_control(settings))

    return make


def _page(request: web.Request, site: Site, path: str) -> Callable[[], Awaitable[Page | None]]:
    store, apps, settings = request.app[STORE], request.app[APPS], request.app[SETTINGS]

    async def load() -> Page | None:
        found = await apps.page(store.caller(site.organization_id), site.app_id, path)
        if found is None:
            return None
        document = found["document"]
        page = routed_page(document, site.base_url, path, "noindex" if document.get("noIndex") else None)
        return page.cacheable(cache_control(settings))

    return load


async def served(request: web.Request, domain: Domain, key: str) -> web.Response | None:
    """What the App itself answers at the canonical path `key` of a GET or HEAD, or None (not its page)."""
    store = request.app[STORE]
    site = await store.site(domain)
    if key == "/robots.txt" or key in FILES:
        answer = store.held(site, key)
        if answer is MISSING:
            answer = await store.answer(
                site, key, _robots(request, site) if key == "/robots.txt" else _file(request, site, key[1:])
            )
        return send(request, answer)
    as_markdown = key.endswith(".md") and key not in site.routes and key[:-3] in site.routes
    route = key[:-3] if as_markdown else key
    if route not in site.routes:
        return None
    slot = ("page", route)
    page: Page | None = store.held(site, slot)
    if page is MISSING:
        page = await store.answer(site, slot, _page(request, site, site.routes[route]))
    if page is None:
        return None
    if page.redirect is not None:
        return send(request, page.redirect)
    if as_markdown:
        return send(request, page.markdown_file)
    return send(request, page.markdown if wants_markdown(request.headers.get("Accept", "")) else page.html)


def _scheme(request: web.Request) -> str:
    """The scheme the client used: a trusted proxy's `X-Forwarded-Proto` (Caddy ends TLS), else the connection's."""
    settings: EdgeSettings = request.app[SETTINGS]
    forwarded = request.headers.get("X-Forwarded-Proto", "").lower()
    try:
        peer = ipaddress.ip_address(request.remote or "")
    except ValueError:
        return request.scheme
    trusted = any(peer in network for network in settings.trusted_proxies)
    return forwarded if trusted and forwarded in ("http", "https") else request.scheme


async def to_origin(request: web.Request, domain: Domain) -> web.StreamResponse:
    if not domain.origin:
        return send(request, NO_PAGE)
    try:
        return await request.app[ORIGINS].forward(
            request, domain.origin, client_address(request), _scheme(request), domain.hostname
        )
    except OriginRefused as exc:
        log.warning("origin of %s refused: %s", domain.hostname, exc)
        return send(request, refusal(502, "Bad gateway", "The site's origin is not an address this edge may reach."))
    except TimeoutError:
        return send(request, refusal(504, "Gateway timeout", "The site's origin did not answer in time."))
    except OSError as exc:
        log.info("origin of %s unreachable: %r", domain.hostname, exc)
        return send(request, refusal(502, "Bad gateway", "The site's origin could not be reached."))


async def edge(request: web.Request) -> web.StreamResponse:
    """The one handler of every path."""
    try:
        host = known_host(request.headers.get("Host"))
    except BadHost as exc:
        return send(request, refusal(400, "Bad request", f"{exc}."))
    if host.own:
        return await own_endpoint(request)
    domain = await request.app[STORE].domain(host.name)
    if domain is None:
        return send(request, NO_APP)
    request[DOMAIN] = domain
    if domain.type == "redirect":
        if not domain.origin:
            return send(request, NO_APP)
        try:
            location = origin_base(domain.origin) + request.raw_path
        except OriginRefused:
            return send(request, NO_APP)
        redirect = Answer(308, b"", (("Location", location),))
        return send(request, redirect.cacheable(cache_control(request.app[SETTINGS])))
    if domain.type != "web":
        return send(request, NO_APP)
    key = route_key(request.raw_path)
    if request.method in READS:
        answer = await served(request, domain, key)
        if answer is not None:
            return answer
    elif key in (*FILES, "/robots.txt") or key in (await request.app[STORE].site(domain)).routes:
        return send(request, NOT_ALLOWED)
    return await to_origin(request, domain)


@web.middleware
async def pages_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Errors as pages: a part that does not answer is its 502/503/504, anything unexpected a 500."""
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except ApiError as exc:
        if exc.status < 500:
            log.warning("apps refused an edge read: %s %s", exc.status, exc.message)
            return send(request, refusal(502, "Bad gateway", "The site could not be read just now."))
        response = send(request, refusal(exc.status, "Unavailable", "The site could not be read just now."))
        response.headers.update(exc.headers)
        return response
    except Exception:
        log.exception("edge request failed")
        return send(request, refusal(500, "Server error", "Something went wrong on our side."))

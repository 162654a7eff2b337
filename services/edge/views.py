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

from aiohttp import web
from aiohttp.typedefs import Handler

from libs.common import health
from libs.common.client_address import client_address
from libs.common.clients import EdgeAppsClient
from libs.common.errors import ApiError
from libs.common.http_client import upstream_error
from libs.common.state import SETTINGS
from libs.common.validators import normalize_route_path
from services.edge.hosts import BadHost, app_hostname, parse_host
from services.edge.origin import OriginRefused, Origins, origin_base
from services.edge.pages import TEXT, Answer, Page, made, refusal, robots_txt, routed_page
from services.edge.settings import EdgeSettings
from services.edge.store import DOMAIN, Domain, Site, Store

log = logging.getLogger(__name__)

APPS: web.AppKey[EdgeAppsClient] = web.AppKey("edge_apps")
STORE: web.AppKey[Store] = web.AppKey("edge_store")
ORIGINS: web.AppKey[Origins] = web.AppKey("edge_origins")
# Set on requests to the edge's own endpoints, which the request log leaves out.
OWN: web.RequestKey[bool] = web.RequestKey("edge_own")

FILES = ("/llms.txt", "/llms-full.txt", "/sitemap.xml")
READS = ("GET", "HEAD")

NO_APP = refusal(404, "Not found", "No site is served at this address.")
NO_PAGE = refusal(404, "Not found", "There is no page at this address.")


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


def send(request: web.Request, answer: Answer, *extra: tuple[str, str]) -> web.Response:
    """`answer` as a response, or a 304 when the request's If-None-Match names its ETag."""
    settings: EdgeSettings = request.app[SETTINGS]
    headers = [*answer.headers, *extra]
    if answer.status < 400 and not any(name == "Cache-Control" for name, _ in headers):
        headers.append(
            ("Cache-Control", f"public, max-age={settings.max_age_seconds},"
                              f" stale-while-revalidate={settings.stale_seconds}")
        )  # fmt: skip
    etag = answer.etag
    named = request.headers.get("If-None-Match")
    if etag is not None and answer.status == 200 and named is not None:
        if any(tag.strip() in (etag, f"W/{etag}", "*") for tag in named.split(",")):
            kept = [(name, value) for name, value in headers if name in ("ETag", "Cache-Control", "Vary", "Link")]
            return web.Response(status=304, headers=kept)
    response = web.Response(status=answer.status, body=answer.body)
    for name, value in headers:
        response.headers.add(name, value)
    return response


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


def _file(apps: EdgeAppsClient, store: Store, site: Site, name: str) -> Callable[[], Awaitable[Answer]]:
    async def load() -> Answer:
        answer = await apps.file(store.caller(site.organization_id), name, site.app_id)
        if answer.status != 200:
            raise upstream_error(answer)
        headers = [("Content-Type", answer.headers.get("Content-Type", TEXT))]
        if "ETag" in answer.headers:
            headers.append(("ETag", answer.headers["ETag"]))
        return Answer(200, answer.body, tuple(headers))

    return load


def _page(apps: EdgeAppsClient, store: Store, site: Site, path: str) -> Callable[[], Awaitable[Page | None]]:
    async def load() -> Page | None:
        found = await apps.page(store.caller(site.organization_id), site.app_id, path)
        if found is None:
            return None
        document = found["document"]
        return routed_page(document, site.base_url, path, "noindex" if document.get("noIndex") else None)

    return load


async def served(request: web.Request, domain: Domain, key: str) -> web.Response | None:
    """What the App itself answers at the canonical path `key` of a GET or HEAD, or None (not its page)."""
    store, apps = request.app[STORE], request.app[APPS]
    site = await store.site(domain)
    if key == "/robots.txt":
        answer = await store.answer(site, key, lambda: _robots(site))
        return send(request, answer)
    if key in FILES:
        return send(request, await store.answer(site, key, _file(apps, store, site, key[1:])))
    as_markdown = key.endswith(".md") and key not in site.routes and key[:-3] in site.routes
    route = key[:-3] if as_markdown else key
    if route not in site.routes:
        return None
    page: Page | None = await store.answer(site, ("page", route), _page(apps, store, site, site.routes[route]))
    if page is None:
        return None
    if page.redirect_to is not None:
        return send(request, Answer(308, b"", (("Location", page.redirect_to),)))
    if as_markdown:
        return send(request, page.markdown)
    markdown = wants_markdown(request.headers.get("Accept", ""))
    return send(request, page.markdown if markdown else page.html, ("Vary", "Accept"))


async def _robots(site: Site) -> Answer:
    return made(robots_txt(site.config, site.base_url), TEXT)


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
        host = parse_host(request.headers.get("Host"))
    except BadHost as exc:
        return send(request, refusal(400, "Bad request", f"{exc}."))
    if host.own:
        request[OWN] = True
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
        return send(request, Answer(308, b"", (("Location", location),)))
    if domain.type != "web":
        return send(request, NO_APP)
    key = normalize_route_path(request.raw_path.partition("?")[0])
    if request.method in READS:
        answer = await served(request, domain, key)
        if answer is not None:
            return answer
    elif key in (*FILES, "/robots.txt") or key in (await request.app[STORE].site(domain)).routes:
        return send(request, Answer(405, b"", (("Allow", "GET, HEAD"), ("Cache-Control", "no-store"))))
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

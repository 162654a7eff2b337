"""What the edge answers, made once per version and kept (services/edge/store.py): a routed
document as an HTML page for people and as markdown for agents, robots.txt from the App's config,
and the plain pages of refusals.

Every value of a document placed in HTML is escaped; the markdown is rendered by CommonMark with
raw HTML shown as text (libs/common/markdown.py), so nothing a document holds can run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from html import escape
from typing import Any
from urllib.parse import quote, urlsplit

from multidict import CIMultiDict, CIMultiDictProxy

from libs.common.markdown import render_markdown

HTML = "text/html; charset=utf-8"
MARKDOWN = "text/markdown; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
DESCRIBEDBY = '</llms.txt>; rel="describedby"'
VARY = ("Vary", "Accept")
NOT_MODIFIED = frozenset({"ETag", "Cache-Control", "Vary", "Link"})
# The App config's key for robots.txt: a list of {userAgent, allow: [...], disallow: [...]}.
ROBOTS_KEY = "robots"


@dataclass(frozen=True)
class Answer:
    """A complete answer, kept as made: status, body and its headers (ETag among them). The headers
    of a response and of its 304 are built once, on first use, not on every request."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]

    @cached_property
    def etag(self) -> str | None:
        return dict(self.headers).get("ETag")

    @cached_property
    def response_headers(self) -> CIMultiDictProxy[str]:
        return CIMultiDictProxy(CIMultiDict(self.headers))

    @cached_property
    def not_modified_headers(self) -> CIMultiDictProxy[str]:
        """What a 304 keeps of the headers (RFC 9110 15.4.5)."""
        return CIMultiDictProxy(CIMultiDict((name, value) for name, value in self.headers if name in NOT_MODIFIED))

    def with_headers(self, *headers: tuple[str, str]) -> Answer:
        return Answer(self.status, self.body, (*self.headers, *headers))

    def cacheable(self, cache_control: str) -> Answer:
        """The answer with `cache_control` unless it is a refusal or already says how to cache it."""
        if self.status >= 400 or any(name == "Cache-Control" for name, _ in self.headers):
            return self
        return self.with_headers(("Cache-Control", cache_control))


def strong_etag(*parts: bytes) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return f'"{digest.hexdigest()}"'


def made(body: bytes, content_type: str, *headers: tuple[str, str], status: int = 200) -> Answer:
    return Answer(
        status, body, (("Content-Type", content_type), ("ETag", strong_etag(content_type.encode(), body)), *headers)
    )


@dataclass(frozen=True)
class Page:
    """A routed, published document: as HTML and as markdown chosen by `Accept` (both varying by
    it), as markdown at its `.md` path, or the redirect to where it moved."""

    html: Answer
    markdown: Answer
    markdown_file: Answer
    redirect: Answer | None

    def cacheable(self, cache_control: str) -> Page:
        return Page(
            self.html.cacheable(cache_control),
            self.markdown.cacheable(cache_control),
            self.markdown_file.cacheable(cache_control),
            self.redirect.cacheable(cache_control) if self.redirect else None,
        )


def _text(document: Mapping[str, Any], *keys: str) -> str | None:
    """The first of the document's `keys` holding text."""
    for key in keys:
        value = document.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _web_url(value: str | None) -> str | None:
    """An absolute http(s) URL, or None for anything else (a `javascript:` address, a relative path)."""
    if value is None:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    return value if parts.scheme in ("http", "https") and parts.netloc else None


def page_url(base_url: str, path: str) -> str:
    return base_url + quote(path, safe="/%:@!$&'*+,;=-._~")


def html_page(document: Mapping[str, Any], url: str, markdown_path: str) -> bytes:
    title = _text(document, "metaTitle", "title") or "Untitled"
    description = _text(document, "metaDescription", "description")
    canonical = _web_url(_text(document, "canonicalUrl")) or url
    og_title = _text(document, "ogTitle", "metaTitle", "title") or title
    og_description = _text(document, "ogDescription", "metaDescription", "description")
    og_image = _web_url(_text(document, "ogImage", "image"))
    twitter_image = _web_url(_text(document, "twitterImage")) or og_image
    meta: list[tuple[str, str, str | None]] = [
        ("name", "description", description),
        ("property", "og:type", "article"),
        ("property", "og:url", canonical),
        ("property", "og:title", og_title),
        ("property", "og:description", og_description),
        ("property", "og:image", og_image),
        ("name", "twitter:card", "summary_large_image" if twitter_image else "summary"),
        ("name", "twitter:title", _text(document, "twitterTitle") or og_title),
        ("name", "twitter:description", _text(document, "twitterDescription") or og_description),
        ("name", "twitter:image", twitter_image),
    ]
    if document.get("noIndex"):
        meta.insert(0, ("name", "robots", "noindex"))
    tags = "".join(f'<meta {kind}="{escape(name)}" content="{escape(value)}">\n' for kind, name, value in meta if value)
    body = render_markdown(document.get("content") or "")
    heading = "" if body.lstrip().startswith("<h1") else f"<h1>{escape(_text(document, 'title') or title)}</h1>\n"
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n{tags}"
        f'<link rel="canonical" href="{escape(canonical)}">\n'
        f'<link rel="alternate" type="text/markdown" href="{escape(markdown_path)}">\n'
        '<link rel="describedby" href="/llms.txt">\n'
        f"<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{heading}{body}</main>\n</body>\n</html>\n"
    ).encode()


STYLE = (
    "body{margin:0;font:17px/1.6 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1b1f24;background:#fff}"
    "main{max-width:46rem;margin:0 auto;padding:2.5rem 1.25rem 4rem}h1,h2,h3{line-height:1.25}"
    "a{color:#0b57d0}pre{overflow:auto;padding:1rem;background:#f4f5f7;border-radius:6px}"
    "code{font-size:.9em}table{border-collapse:collapse;display:block;overflow:auto}"
    "th,td{border:1px solid #d0d4da;padding:.35rem .6rem}img{max-width:100%}"
    "@media (prefers-color-scheme:dark){body{background:#121417;color:#e6e8eb}a{color:#8ab4f8}"
    "pre{background:#1d2024}th,td{border-color:#3a3f45}}"
)


def routed_page(document: Mapping[str, Any], base_url: str, path: str, robots: str | None) -> Page:
    """The document routed at `path` as HTML and markdown; `robots` is its X-Robots-Tag."""
    extra = (("X-Robots-Tag", robots),) if robots else ()
    markdown_path = path.rstrip("/") + ".md" if path != "/" else "/index.md"
    html = html_page(document, page_url(base_url, path), page_url("", markdown_path))
    text = (document.get("content") or "").encode()
    markdown = made(text, MARKDOWN, ("Link", DESCRIBEDBY), *extra)
    redirect_to = _web_url(_text(document, "redirectToUrl"))
    return Page(
        made(html, HTML, ("Link", DESCRIBEDBY), *extra, VARY),
        markdown.with_headers(VARY),
        markdown,
        Answer(308, b"", (("Location", redirect_to),)) if redirect_to else None,
    )


def _line(value: Any) -> str | None:
    """One robots.txt value: text on one line, or None."""
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value or None


def robots_txt(config: Any, base_url: str) -> bytes:
    """robots.txt from the App config's `robots` rules (every agent allowed without them), and the sitemap.

    `{"robots": [{"userAgent": "GPTBot", "disallow": ["/"]}, {"userAgent": "*", "allow": ["/"]}]}`
    lets every agent in but GPTBot (a training crawler). Entries that are not rules are left out.
    """
    rules = config.get(ROBOTS_KEY) if isinstance(config, dict) else None
    groups: list[str] = []
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, dict):
            continue
        agents = rule.get("userAgent")
        names = [_line(agent) for agent in (agents if isinstance(agents, list) else [agents])]
        lines = [f"User-agent: {name}" for name in names if name]
        if not lines:
            continue
        for field, key in (("Allow", "allow"), ("Disallow", "disallow")):
            values = rule.get(key)
            lines += [
                f"{field}: {value}"
                for value in map(_line, values if isinstance(values, list) else [values])
                if value is not None
            ]
        if len(lines) == len([name for name in names if name]):
            lines.append("Allow: /")
        groups.append("\n".join(lines))
    if not groups:
        groups.append("User-agent: *\nAllow: /")
    return ("\n\n".join(groups) + f"\n\nSitemap: {base_url}/sitemap.xml\n").encode()


def refusal(status: int, title: str, message: str) -> Answer:
    """A plain page for a refusal (an unknown host, no page here, a bad request, an origin down)."""
    body = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="robots" content="noindex">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{escape(title)}</h1>\n<p>{escape(message)}</p>\n</main>\n</body>\n</html>\n"
    ).encode()
    return Answer(status, body, (("Content-Type", HTML), ("Cache-Control", "no-store")))

"""Agent-readiness checks of an App, recorded as a run's first steps (after the checks of
Cloudflare's and AthenaHQ's agent-readiness reports): llms.txt present and parseable, markdown
versions of its pages reachable, the sitemap valid, robots rules allowing the agent's user agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.common.encoding import loads
from services.simulations.agent import documents
from services.simulations.agent.fetcher import Fetched, RunFetcher
from services.simulations.agent.steps import Record, Step

# How many linked pages the markdown check reads (the agent reads them again from the run's copy).
MARKDOWN_SAMPLE = 3
MARKDOWN_TYPES = ("text/markdown", "text/plain")


@dataclass(frozen=True)
class Readiness:
    llms: documents.LlmsTxt | None
    sitemap: list[str] | None
    # The robots rules' text; None when the App publishes none (RFC 9309: everything is allowed).
    robots: str | None
    # Each check's verdict by name: llmsTxt, sitemap, robots, markdown.
    checks: dict[str, bool]


def _fetch_step(name: str, fetched: Fetched, ok: bool, **detail: object) -> Step:
    return Step("check", name, fetched.path, fetched.status, len(fetched.body), 0, ok, dict(detail), fetched.elapsed_ms)


def _error_of(fetched: Fetched) -> str | None:
    """The apps part's error message, for a refusal (`the app has no web domain`, `app not found`)."""
    if fetched.ok:
        return None
    try:
        message = loads(fetched.body).get("message")
    except (ValueError, AttributeError):
        return None
    return message if isinstance(message, str) else None


async def check(fetcher: RunFetcher, user_agent: str, record: Record) -> Readiness:
    llms_fetched = await fetcher.get("/llms.txt")
    llms = documents.parse_llms_txt(llms_fetched.text) if llms_fetched.ok else None
    checks = {"llmsTxt": llms is not None and llms.parseable}
    await record(
        _fetch_step(
            "llms_txt",
            llms_fetched,
            llms is not None and llms.parseable,
            why=_error_of(llms_fetched) or ("parsed" if llms and llms.parseable else "no title or no links"),
            title=llms.title if llms else None,
            links=len(llms.links) if llms else 0,
        )
    )

    sitemap_fetched = await fetcher.get("/sitemap.xml")
    sitemap = documents.parse_sitemap(sitemap_fetched.body) if sitemap_fetched.ok else None
    checks["sitemap"] = sitemap is not None
    await record(
        _fetch_step(
            "sitemap",
            sitemap_fetched,
            sitemap is not None,
            why=_error_of(sitemap_fetched) or ("a sitemaps.org urlset" if sitemap is not None else "not a urlset"),
            urls=len(sitemap or []),
        )
    )

    robots_fetched = await fetcher.get("/robots.txt")
    robots = robots_fetched.text if robots_fetched.ok else None
    sample_paths = ["/llms.txt", *(link.path for link in (llms.links if llms else [])[:MARKDOWN_SAMPLE])]
    allowed = documents.robots_allow(robots, user_agent, sample_paths) if robots is not None else {}
    checks["robots"] = all(allowed.values())
    await record(
        _fetch_step(
            "robots",
            robots_fetched,
            all(allowed.values()),
            why="no robots.txt: every agent is allowed (RFC 9309)"
            if robots is None
            else ("allows " if all(allowed.values()) else "refuses ") + user_agent,
            userAgent=user_agent,
            refused=[path for path, ok in allowed.items() if not ok],
        )
    )

    sampled: list[dict[str, Any]] = []
    for link in (llms.links if llms else [])[:MARKDOWN_SAMPLE]:
        page = await fetcher.get(link.path)
        markdown = page.ok and page.content_type.split(";")[0].strip() in MARKDOWN_TYPES
        sampled.append({"url": link.url, "status": page.status, "markdown": markdown})
    reachable = checks["markdown"] = bool(sampled) and all(page["markdown"] for page in sampled)
    await record(
        Step(
            "check",
            "markdown",
            None,
            None,
            0,
            0,
            reachable,
            {
                "why": "no linked page to try"
                if not sampled
                else f"{sum(page['markdown'] for page in sampled)} of {len(sampled)} linked pages answer markdown",
                "pages": sampled,
            },
        )
    )
    return Readiness(llms, sitemap, robots, checks)

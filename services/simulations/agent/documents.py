"""Reading what an App publishes for agents: the links of its llms.txt (llmstxt.org), the URLs of
its sitemap (sitemaps.org 0.9), its robots rules (RFC 9309), and the passages of a markdown page."""

from __future__ import annotations

import re
import urllib.robotparser
from dataclasses import dataclass
from urllib.parse import urlsplit
from xml.etree import ElementTree

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# `- [title](url)` or `- [title](url): note`, the llms.txt proposal's list entry.
LLMS_LINK = re.compile(r"^\s*[-*]\s*\[(?P<title>[^\]]*)\]\((?P<url>[^)\s]+)\)(?::\s*(?P<note>.*))?$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass(frozen=True)
class Link:
    title: str
    url: str
    note: str
    section: str

    @property
    def path(self) -> str:
        parts = urlsplit(self.url)
        return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc.lower()


@dataclass(frozen=True)
class LlmsTxt:
    title: str | None
    links: list[Link]

    @property
    def parseable(self) -> bool:
        """The proposal's minimum: an H1 title, and at least one section of links."""
        return self.title is not None and bool(self.links)


def parse_llms_txt(text: str) -> LlmsTxt:
    title: str | None = None
    section = ""
    links: list[Link] = []
    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading:
            if len(heading.group(1)) == 1 and title is None:
                title = heading.group(2)
            else:
                section = heading.group(2)
            continue
        link = LLMS_LINK.match(line)
        if link and title is not None:
            links.append(Link(link["title"], link["url"], (link["note"] or "").strip(), section))
    return LlmsTxt(title, links)


def parse_sitemap(body: bytes) -> list[str] | None:
    """The `<loc>` of every `<url>`; None when the body is not a sitemaps.org urlset."""
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return None
    if root.tag != f"{SITEMAP_NS}urlset":
        return None
    return [loc.text.strip() for loc in root.iter(f"{SITEMAP_NS}loc") if loc.text and loc.text.strip()]


def robots_allow(text: str, user_agent: str, paths: list[str]) -> dict[str, bool]:
    """Whether the robots rules let `user_agent` fetch each path."""
    parser = urllib.robotparser.RobotFileParser()
    parser.parse(text.splitlines())
    return {path: parser.can_fetch(user_agent, path) for path in paths}


@dataclass(frozen=True)
class Passage:
    heading: str
    text: str

    @property
    def searchable(self) -> str:
        return f"{self.heading}\n{self.text}"


def passages(markdown: str) -> list[Passage]:
    """The page's paragraphs, list items and table rows, each under the heading it sits below."""
    heading = ""
    found: list[Passage] = []
    paragraph: list[str] = []

    def close() -> None:
        if paragraph:
            found.append(Passage(heading, " ".join(paragraph)))
            paragraph.clear()

    for raw in markdown.splitlines():
        line = raw.strip()
        match = HEADING.match(line)
        if match:
            close()
            heading = match.group(2)
        elif not line or set(line) <= set("|-: "):
            close()
        elif line.startswith(("- ", "* ", "+ ", "|")) or re.match(r"^\d+[.)]\s", line):
            close()
            found.append(Passage(heading, line.strip("|-*+ ").replace(" | ", " · ")))
        else:
            paragraph.append(line)
    close()
    return found

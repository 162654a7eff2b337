"""The texts an App publishes for agents, from its listed routes: llms.txt (llmstxt.org), the
parts of llms-full.txt, and sitemap.xml (sitemaps.org 0.9). Pure functions, no I/O.

Each link line is `- [title](url): note`, as the llms.txt proposal has it; titles, notes and
headings are written on one line and without the characters that would end a link early, so any
llms.txt parser reads back every entry.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple
from urllib.parse import quote, unquote
from xml.sax.saxutils import escape

from markdown_it import MarkdownIt

from libs.contract import internal_bodies as b

OPTIONAL_SECTION = "Optional"
# Top-level pages whose segment heads no deeper path.
PAGES_SECTION = "Pages"
# The sitemap protocol's limit on one file's URLs.
SITEMAP_MAX_URLS = 50_000
SITEMAP_URL_MAX = 2048
# Characters a URL path may keep as they are; anything else (spaces, parentheses, non-ASCII) is
# percent-encoded, so a link's URL never holds the ")" that would close it early.
_URL_PATH_SAFE = "/%:@!$&'*+,;=-._~"
_PLAIN_PATH = re.compile(r"[A-Za-z0-9/%:@!$&'*+,;=._~-]*")
_HEADINGS_MOVED = 2
_MARKDOWN = MarkdownIt("commonmark")


class Entry(NamedTuple):
    """One listed route: its path, its URL on the primary domain and its document as content lists it
    (`{id, title, note, priority, productId, updatedAt}`). A tuple: an App lists 10,000 of them."""

    path: str
    url: str
    document: b.ListedDocument

    @property
    def title(self) -> str:
        return link_text(self.document["title"]) or self.path


def one_line(text: str) -> str:
    return " ".join(text.split())


def link_text(text: str) -> str:
    """`text` on one line without square brackets, which would end a link's text early."""
    return one_line(text.replace("[", "(").replace("]", ")"))


def page_url(base_url: str, path: str) -> str:
    return base_url + (path if _PLAIN_PATH.fullmatch(path) else quote(path, safe=_URL_PATH_SAFE))


def listed(routes: Iterable[tuple[str, str]], documents: dict[str, b.ListedDocument], base_url: str) -> list[Entry]:
    """The routes whose target is listed, by the document's priority (highest first), then path."""
    entries = [
        Entry(path, page_url(base_url, path), documents[target]) for path, target in routes if target in documents
    ]
    entries.sort(key=lambda entry: (-entry.document["priority"], entry.path))
    return entries


def _segment_title(segment: str) -> str:
    words = one_line(unquote(segment).replace("-", " ").replace("_", " ")) or segment
    return link_text(words[:1].upper() + words[1:])


def _path_group(path: str, heads: set[str]) -> str | None:
    """The first segment of a path below it; a top-level page's own segment when it heads others."""
    segments = path.split("/", 2)
    return segments[1] if len(segments) > 2 or segments[1] in heads else None


def sections(
    entries: list[Entry], product_names: dict[str, str] | None, optional_below: float
) -> list[tuple[str, list[Entry]]]:
    """The H2 sections of the listed entries, in the order of their first entry, then `Optional`
    (entries below the priority threshold).

    With `product_names` (an App of several products), one section per product, titled by its
    name; otherwise one per first path segment, top-level pages under `Pages`. Titles are unique:
    a repeated one gets a number.
    """
    heads = {path.split("/", 2)[1] for path, _, _ in entries if path.count("/") > 1}
    groups: dict[str | None, list[Entry]] = {}
    titles: dict[str | None, str] = {}
    optional: list[Entry] = []
    for entry in entries:
        if entry.document["priority"] < optional_below:
            optional.append(entry)
            continue
        key: str | None
        if product_names is not None:
            key = entry.document["productId"]
            title = link_text(product_names.get(key or "", "")) or "Product"
        else:
            key = _path_group(entry.path, heads)
            title = PAGES_SECTION if key is None else _segment_title(key)
        if key not in groups:
            groups[key], titles[key] = [], title
        groups[key].append(entry)
    taken = {OPTIONAL_SECTION}
    named: list[tuple[str, list[Entry]]] = []
    for key, group in groups.items():
        title, number = titles[key], 2
        while title in taken:
            title, number = f"{titles[key]} {number}", number + 1
        taken.add(title)
        named.append((title, group))
    if optional:
        named.append((OPTIONAL_SECTION, optional))
    return named


def header(title: str, summary: str | None, base_url: str) -> str:
    """The H1, the blockquote summary when there is one, and a line saying where the texts are (the
    llms.txt proposal's details, which its parsers expect before the first section)."""
    text = f"# {one_line(title)}\n\n"
    if summary and one_line(summary):
        text += f"> {one_line(summary)}\n\n"
    return text + (
        f"The pages of {one_line(title)} on {base_url}, most important first. The index: {base_url}/llms.txt;"
        f" every page in full: {base_url}/llms-full.txt.\n\n"
    )


def llms_txt(title: str, summary: str | None, base_url: str, named_sections: list[tuple[str, list[Entry]]]) -> str:
    parts = [header(title, summary, base_url)]
    for name, group in named_sections:
        parts.append(f"## {name}\n\n")
        for entry in group:
            note = entry.document["note"]
            note = " ".join(note.split()) if note else ""
            parts.append(f"- [{entry.title}]({entry.url}): {note}\n" if note else f"- [{entry.title}]({entry.url})\n")
        parts.append("\n")
    return "".join(parts)


def first_per_document(entries: Iterable[Entry]) -> list[Entry]:
    """Each document once, at its first listed route."""
    seen: set[str] = set()
    firsts = []
    for entry in entries:
        if entry.document["id"] not in seen:
            seen.add(entry.document["id"])
            firsts.append(entry)
    return firsts


def moved_down(markdown: str, levels: int = _HEADINGS_MOVED) -> str:
    """`markdown` with its own headings `levels` deeper (at most H6), ATX and setext alike; a `#` in
    a code block or a paragraph is left alone (markdown-it-py, CommonMark, finds the headings).
    Headings nested in a list or a quote stay as they are."""
    text = markdown.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    headings = [
        token for token in _MARKDOWN.parse(text) if token.type == "heading_open" and token.level == 0 and token.map
    ]
    for token in reversed(headings):  # from the end, so a setext heading's lines shrinking moves none still to do
        start, end = token.map or (0, 0)
        depth = "#" * min(int(token.tag[1:]) + levels, 6)
        if token.markup.startswith("#"):
            line = lines[start]
            stripped = line.lstrip(" ")
            lines[start] = depth + stripped[len(stripped) - len(stripped.lstrip("#")) :]
        else:  # setext: its text lines, then the underline
            lines[start:end] = [f"{depth} {one_line(' '.join(lines[start : end - 1]))}"]
    return "\n".join(lines)


def full_part(entry: Entry, content: str) -> str:
    """A document in llms-full.txt: an H2 with its title and URL, then its markdown."""
    body = moved_down(content).strip("\n")
    return f"## [{entry.title}]({entry.url})\n\n" + (f"{body}\n\n" if body else "")


def sitemap(entries: Iterable[Entry]) -> Iterator[str]:
    """sitemap.xml of the entries' URLs (the first 50,000 that fit the protocol's 2048 characters),
    `lastmod` the document's last change."""
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    count = 0
    for entry in entries:
        if len(entry.url) > SITEMAP_URL_MAX or count == SITEMAP_MAX_URLS:
            continue
        count += 1
        yield f"<url><loc>{escape(entry.url)}</loc><lastmod>{entry.document['updatedAt']}</lastmod></url>\n"
    yield "</urlset>\n"


def strong_etag(*parts: bytes) -> str:
    """A strong entity tag (without its quotes) of the bytes an answer is made of."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()

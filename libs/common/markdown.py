"""Markdown as HTML for people: CommonMark (markdown-it-py) with tables, raw HTML shown as text and
links of unsafe schemes (`javascript:`, `vbscript:`, `file:`, most `data:`) left unlinked. The
dashboard's previews and the edge's pages render with this one function."""

from __future__ import annotations

from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def render_markdown(text: str | None) -> str:
    """The HTML of `text`, safe to place in a page: nothing of it can run."""
    html: str = _MARKDOWN.render(text or "")
    return html

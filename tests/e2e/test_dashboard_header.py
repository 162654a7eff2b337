"""The top bar and the tables as a person sees them, at desktop and at a phone's width, with a
screenshot of each: one line of header at 1280 px with two organizations, a small header on a
phone, no word split across lines in a table, and a runs filter offering the states runs have."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from services.simulations.contract import RUN_STATUSES
from tests.e2e.browser import Accounts, shoot, sign_in
from tests.e2e.test_dashboard_pages import NARROW, sticking_out

DESKTOP = {"width": 1280, "height": 900}

# The words of table cells laid out on more than one line (a word split mid-way), short ones only:
# a long URL or id may break where it must, and a hyphen is a word's own place to break.
SPLIT_WORDS = """() => {
  const split = [];
  for (const cell of document.querySelectorAll("th, td")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/[^\\s-]{2,24}/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
        if (tops.size > 1) split.push(match[0]);
      }
    }
  }
  return split;
}"""


def header_height(page: Page) -> float:
    box = page.locator("header.topbar").bounding_box()
    assert box is not None
    return box["height"]


def test_the_header_and_tables_fit_desktop_and_phone(page: Page, accounts: Accounts):
    first = accounts.organization("Northwind Traders International")
    second = accounts.organization("Wide World Importers Worldwide")
    slug = first["slug"]
    sign_in(page, accounts.user((first, "owner"), (second, "viewer"), name="Alexandra Montgomery-Whitfield"))

    page.set_viewport_size(DESKTOP)
    page.goto(f"/{slug}/runs")
    expect(page.get_by_label("Organization")).to_be_visible()
    # One line: the bar is as tall as its tallest control, not two rows of them.
    assert header_height(page) < 64, header_height(page)
    nav = page.get_by_role("navigation", name="Main")
    for label in ("Overview", "Runs", "Settings", "Organizations", "API reference"):
        expect(nav.get_by_role("link", name=label)).to_be_in_viewport()
    expect(page.get_by_role("button", name="Sign out")).to_be_in_viewport()
    options = page.get_by_label("Status").locator("option").all_inner_texts()
    assert options == ["Any", *RUN_STATUSES] and "pending" not in options
    page.get_by_label("Status").select_option("failed")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_label("Status")).to_have_value("failed")
    assert "status=failed" in page.url
    shoot(page, "header-desktop-runs")

    page.goto(f"/{slug}/settings/members")
    expect(page.locator("td").first).to_be_visible()
    shoot(page, "header-desktop-members")
    assert page.evaluate(SPLIT_WORDS) == []

    page.set_viewport_size(NARROW)
    page.goto(f"/{slug}/settings/members")
    # Two short rows: a fifth of the screen at most.
    assert header_height(page) <= NARROW["height"] / 5, header_height(page)
    expect(page.get_by_label("Organization")).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_in_viewport()
    assert page.evaluate(SPLIT_WORDS) == []
    expect(page.locator("td").first).to_be_visible()
    shoot(page, "header-phone-members")
    assert sticking_out(page) == []
    page.goto(f"/{slug}/runs")
    assert sticking_out(page) == []
    shoot(page, "header-phone-runs")

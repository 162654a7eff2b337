"""The API reference in a real browser: how long /docs takes until every operation is in the
page, on a first visit (empty cache) and on later ones (warm cache), and what each visit
downloads. Measured in the same run for reference: the sign-in page (a small server-rendered
page). The console (Swagger UI on the same document) has its own benchmark, bench/console.py.

Each visit opens a new tab and navigates (a navigation, not a reload, which would revalidate
every asset); "drawn" is the moment the page's last part is in the document (the license at the
end of /docs), read from the page's own clock
(`performance.now()`, from the navigation's start).

    python -m deploy.stack exec -- python -m bench.reference
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, sync_playwright

from bench.common import bench_stack, load_average, report, say
from libs.contract.parts import GATEWAY

# Debian's chromium, headless, as the browser tests run it (tests/e2e/browser.py).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
VISITS = 15
COLD_VISITS = 5
VIEWPORT = {"width": 1280, "height": 800}
# The sum of what the visit's navigation and resources moved over the network (0 for a cache hit).
TRANSFERRED = """() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
    .reduce((sum, entry) => sum + entry.transferSize, 0)"""


def reference_drawn(page: Page) -> None:
    page.wait_for_selector("#license", state="attached")


def sign_in_drawn(page: Page) -> None:
    page.wait_for_selector("form", state="attached")


def visit(context: BrowserContext, url: str, drawn: Callable[[Page], None]) -> tuple[float, int]:
    """(milliseconds from navigation start until drawn, bytes transferred) of one visit in a new tab."""
    page = context.new_page()
    page.goto(url, wait_until="commit")
    drawn(page)
    elapsed = float(page.evaluate("performance.now()"))
    page.wait_for_load_state("load")
    transferred = int(page.evaluate(TRANSFERRED))
    page.close()
    return elapsed, transferred


def visits(context: BrowserContext, url: str, drawn: Callable[[Page], None], count: int) -> list[tuple[float, int]]:
    return [visit(context, url, drawn) for _ in range(count)]


def summary(results: list[tuple[float, int]]) -> str:
    times = sorted(elapsed for elapsed, _ in results)
    kilobytes = statistics.median(size for _, size in results) / 1024
    return f"p50 {statistics.median(times):.0f} ms, max {times[-1]:.0f} ms, {kilobytes:.0f} KB transferred (median)"


def main() -> None:
    with bench_stack([GATEWAY]) as stack:
        base = stack.url(GATEWAY.name)
        say(f"before: {load_average()}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            cold = []
            for _ in range(COLD_VISITS):  # each in a fresh profile: nothing cached
                context = browser.new_context(viewport=VIEWPORT)
                cold += visits(context, base + "/docs", reference_drawn, 1)
                context.close()
            context = browser.new_context(viewport=VIEWPORT)
            visits(context, base + "/docs", reference_drawn, 1)  # fills the cache
            visits(context, base + "/login", sign_in_drawn, 1)
            warm = visits(context, base + "/docs", reference_drawn, VISITS)
            sign_in = visits(context, base + "/login", sign_in_drawn, VISITS)
            context.close()
            browser.close()
        report(
            "/docs until every operation is in the page (Chromium, 1280x800)",
            [
                (f"first visit ({COLD_VISITS})", summary(cold)),
                (f"warm ({VISITS})", summary(warm)),
                (f"/login warm ({VISITS})", summary(sign_in)),
            ],
        )
        say(f"after: {load_average()}")


if __name__ == "__main__":
    main()

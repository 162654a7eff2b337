"""The API console (Swagger UI at /docs/console) in a real browser, warm: how long until it has
listed the operations, and until one operation's "Try it out" panel is open, as a person gets
there (open the operation's tag if it is closed, open the operation, press "Try it out").
Measured in the same run for reference: the sign-in page, a small page of the same server and
layout.

Every visit opens a new tab in one browser profile whose cache one visit of each page filled,
and navigates (a navigation, not a reload, which would revalidate every file). Times are the
page's own clock (`performance.now()`, from the navigation's start), so the clicks' time is in
"Try it out" but the browser's start of a tab is not.

    python -m deploy.stack exec -- python -m bench.console
"""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page, sync_playwright

from bench.common import bench_stack, load_average, report, say
from bench.reference import CHROMIUM, CHROMIUM_ARGS, TRANSFERRED, VIEWPORT, sign_in_drawn, summary, visit
from libs.contract.parts import GATEWAY

VISITS = 9
# The operation whose panel is opened, as Swagger UI names its block: operations-<tag>-<operationId>.
TAG = "Agent_simulation"
OPERATION = f"#operations-{TAG}-simulation_runs_list"
# The reference's "Try it" link to it (gateway/dashboard/templates/_reference.html).
LINK = "#/Agent%20simulation/simulation_runs_list"


def now(page: Page) -> float:
    return float(page.evaluate("performance.now()"))


def closed(page: Page) -> int:
    """The bytes the visit transferred, once the page has loaded; the tab is closed."""
    page.wait_for_load_state("load")
    transferred = int(page.evaluate(TRANSFERRED))
    page.close()
    return transferred


def console_visit(context: BrowserContext, url: str) -> tuple[float, float, int]:
    """(ms until the operations are listed, ms until the panel is open, bytes transferred)."""
    page = context.new_page()
    page.goto(url, wait_until="commit")
    page.wait_for_selector(f"#operations-tag-{TAG}", timeout=120_000)
    listed = now(page)
    operation = page.locator(OPERATION)
    if operation.count() == 0:  # its tag is closed
        page.locator(f"#operations-tag-{TAG}").click()
    operation.locator(".opblock-summary-control").click()
    operation.locator("button.execute").wait_for()
    opened = now(page)
    return listed, opened, closed(page)


def linked_visit(context: BrowserContext, url: str) -> tuple[float, int]:
    """(ms until the operation's panel is ready to send, bytes transferred), arriving by the
    reference's "Try it" link: the console opens the operation it names."""
    page = context.new_page()
    page.goto(url + LINK, wait_until="commit")
    page.locator(OPERATION).locator("button.execute").wait_for(timeout=120_000)
    opened = now(page)
    return opened, closed(page)


def main() -> None:
    with bench_stack([GATEWAY]) as stack:
        base = stack.url(GATEWAY.name)
        say(f"before: {load_average()}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=VIEWPORT)
            console_visit(context, base + "/docs/console")  # fills the cache
            visit(context, base + "/login", sign_in_drawn)
            # Interleaved, so a change of the machine's load falls on both alike.
            console, linked, sign_in = [], [], []
            for _ in range(VISITS):
                console.append(console_visit(context, base + "/docs/console"))
                linked.append(linked_visit(context, base + "/docs/console"))
                sign_in.append(visit(context, base + "/login", sign_in_drawn))
            context.close()
            browser.close()
        report(
            f"/docs/console warm, {VISITS} visits each (Chromium, 1280x800)",
            [
                ("operations listed", summary([(listed, size) for listed, _, size in console])),
                ('"Try it out" open', summary([(opened, size) for _, opened, size in console])),
                ('from the reference\'s "Try it"', summary(linked)),
                ("/login (reference)", summary(sign_in)),
            ],
        )
        say(f"after: {load_average()}")


if __name__ == "__main__":
    main()

"""Headless Chromium (the machine's, driven by Playwright) against the live stack, and the
dashboard accounts the browser tests sign in with.

The browser is Debian's `chromium` at /usr/bin/chromium, which `make test` installs when it is
missing: a test never skips for want of it. Every page a test visits can be kept as a
screenshot under screenshots/ (git-ignored) with `shoot(page, name)`.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from libs.contract.parts import GATEWAY, ROOT
from tests.conftest import TestDatabase
from tests.e2e.conftest import LiveStack

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = ROOT / "screenshots"
# How long an action, or an expectation, waits for the page: one patience for both, long enough for
# a page drawn on a machine running the whole suite (the API console's first drawing took 4.7-6.2 s
# there, past `expect`'s own 5 s). How fast pages are is the benchmarks' business (bench/).
WAIT_MS = 15_000
expect.set_options(timeout=WAIT_MS)
# A page up to this height is kept whole; a taller one (the API reference is 60,000-67,000 px) as
# the screen the test is looking at: drawing all of it took 7 s on a quiet machine, and past
# WAIT_MS on one running the whole suite.
WHOLE_PAGE_MAX_PX = 8_000


def shoot(page: Page, name: str) -> Path:
    """Keep what the page looks like now, for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{re.sub(r'[^a-z0-9-]+', '-', name.lower())}.png"
    height = page.evaluate("document.documentElement.scrollHeight")
    page.screenshot(path=str(path), full_page=height <= WHOLE_PAGE_MAX_PX)
    return path


@pytest.fixture
def browser(live_stack: LiveStack) -> Iterator[Browser]:
    """One browser per test. Playwright's synchronous API keeps an event loop running in this
    thread while it is open, so it starts after the live stack (whose setup uses asyncio.run)
    and stops before the next test, which may be an asyncio one."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium and chromium-driver")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def context(live_stack: LiveStack, browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile (no cookies) per test, pointed at the live gateway."""
    opened = browser.new_context(base_url=live_stack.gateway, viewport={"width": 1280, "height": 800})
    opened.set_default_timeout(WAIT_MS)
    yield opened
    opened.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


@dataclass(frozen=True)
class Account:
    email: str
    password: str


@dataclass(frozen=True)
class Accounts:
    """Organizations and users of the live stack, made through the operator's command line."""

    environ: dict[str, str]

    def admin(self, *args: str, stdin: str | None = None) -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "gateway.admin", "--json", *args],
            cwd=ROOT,
            env=self.environ,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        result: dict = json.loads(done.stdout)
        return result

    def organization(self, name: str = "Acme") -> dict:
        slug = f"{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')}-{uuid.uuid4().hex[:6]}"
        return self.admin("create-org", "--slug", slug, "--name", name)

    def user(self, *memberships: tuple[dict, str], name: str = "Test User") -> Account:
        """A user with a password, a member of each (organization, role)."""
        email = f"user-{uuid.uuid4().hex[:10]}@example.com"
        password = secrets.token_urlsafe(12)
        self.admin("create-user", "--email", email, "--name", name, "--password-stdin", stdin=password + "\n")
        for organization, role in memberships:
            self.admin("add-member", "--org", organization["slug"], "--user", email, "--role", role)
        return Account(email, password)


@pytest.fixture(scope="session")
def accounts(live_stack: LiveStack, database: TestDatabase) -> Accounts:
    return Accounts({**live_stack.environ, "DATABASE_URL": database.dsn(GATEWAY)})


def sign_in(page: Page, account: Account) -> None:
    page.goto("/login")
    page.get_by_label("Email").fill(account.email)
    page.get_by_label("Password").fill(account.password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)  # the organization's landing page, or /orgs

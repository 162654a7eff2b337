"""`aivis` run in-process: the root command given a factory whose transport is a fake API.

The fake answers by method and path, records each request, and refuses any path the client
has not declared as an `Endpoint` (tests/cli/test_endpoints.py holds those to the route table).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from click.testing import CliRunner, Result

from aivis.factory import Factory, Terminal
from aivis.main import aivis
from tests.cli.endpoints import declared_endpoints

Answer = Callable[[httpx.Request], httpx.Response]


def ok(data: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json={"ok": True, "data": data})


def error(status: int, code: str, message: str, details: Any = None) -> httpx.Response:
    body = {"ok": False, "code": code, "message": message, **({"details": details} if details is not None else {})}
    return httpx.Response(status, json=body)


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\{\w+\\}", "[^/]+", re.escape(template)) + "$")


@dataclass
class FakeApi:
    answers: dict[tuple[str, str], Answer | list[Answer]] = field(default_factory=dict)
    requests: list[httpx.Request] = field(default_factory=list)

    def on(self, method: str, path: str, *answers: httpx.Response | Answer) -> None:
        """Answer `method path` (a concrete path) with these answers in turn, the last one again and again."""
        self.answers[(method, path)] = [a if callable(a) else (lambda _, a=a: a) for a in answers]

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        declared = [e for e in declared_endpoints() if e.method == request.method and _pattern(e.path).match(path)]
        assert declared, f"{request.method} {path} is no declared endpoint of the client"
        answers = self.answers.get((request.method, path))
        if not answers:
            return error(404, "NOT_FOUND", f"no fake answer for {request.method} {path}")
        assert isinstance(answers, list)
        return (answers.pop(0) if len(answers) > 1 else answers[0])(request)

    def bodies(self, method: str, path: str) -> list[Any]:
        return [
            json.loads(r.content) if r.content else None
            for r in self.requests
            if (r.method, r.url.path) == (method, path)
        ]


@dataclass
class Aivis:
    """Runs `aivis ARGS` in-process against the fake API, with its own config directory."""

    api: FakeApi
    config_dir: Path
    api_key: str | None = "avk_test_key"

    def __call__(
        self, *args: str, interactive: bool = False, width: int = 80, input: str | None = None, **env: str
    ) -> Result:
        factory = Factory(transport=httpx.MockTransport(self.api.handle), terminal=Terminal(interactive, width))
        environ: dict[str, str | None] = {
            "AIVIS_CONFIG_DIR": str(self.config_dir),
            "AIVIS_API_KEY": self.api_key,
            "AIVIS_BASE_URL": "http://api.test",
            "AIVIS_PROFILE": None,
            "AIVIS_ORG_ID": None,
            **env,
        }
        return CliRunner().invoke(aivis, list(args), obj=factory, env=environ, prog_name="aivis", input=input)


@pytest.fixture
def api() -> FakeApi:
    return FakeApi()


@pytest.fixture
def run(api: FakeApi, tmp_path: Path) -> Aivis:
    return Aivis(api, tmp_path / "config")

"""The client is a product of its own: installed alone in a clean virtual environment, it answers
`aivis --help` and `aivis --version`, and brings none of the services' dependencies along."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CLI_PROJECT = Path(__file__).resolve().parents[2] / "cli"
SERVICES_ONLY = {"aiohttp", "aiopg", "numpy", "onnxruntime", "psycopg2-binary", "redis", "tokenizers"}


@pytest.mark.slow
@pytest.mark.long(seconds=40)
def test_the_client_installs_alone_in_a_clean_venv_and_answers_help(tmp_path: Path):
    # A copy of the project, so the build leaves nothing in the checkout.
    project = shutil.copytree(CLI_PROJECT, tmp_path / "cli", ignore=shutil.ignore_patterns("*.egg-info", "build"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(project)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    helped = subprocess.run([str(venv / "bin" / "aivis"), "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("Usage: aivis [OPTIONS] COMMAND [ARGS]...")
    assert "whoami" in helped.stdout and "completion" in helped.stdout
    version = subprocess.run([str(venv / "bin" / "aivis"), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("aivis, version ")
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format", "json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    names = {package["name"].lower() for package in json.loads(listed.stdout)}
    assert {"aivis", "click", "httpx2", "rich"} <= names
    assert names & SERVICES_ONLY == set()

"""The local image build's choices that the rollout test does not show: which Debian mirror the
base is made from, and the `BASE` build argument the Dockerfile starts from."""

from __future__ import annotations

from deploy.local_image import DEFAULT_MIRROR, debian_mirror
from libs.contract.parts import ROOT


def test_the_mirror_is_the_one_apt_uses_in_either_format_never_the_security_one(tmp_path):
    (tmp_path / "sources.list.d").mkdir()
    assert debian_mirror(tmp_path) == DEFAULT_MIRROR
    (tmp_path / "sources.list").write_text(
        "deb [signed-by=/k.gpg] http://security.debian.org/debian-security bookworm-security main\n"
        "deb [arch=amd64] http://mirror.example/debian bookworm main\n"
    )
    assert debian_mirror(tmp_path) == "http://mirror.example/debian"
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://deb.example/debian\nSuites: bookworm\n\n"
        "Types: deb\nURIs: http://deb.example/debian-security\nSuites: bookworm-security\n"
    )
    assert debian_mirror(tmp_path) == "http://deb.example/debian"


def test_the_dockerfile_starts_from_a_base_given_as_a_build_argument():
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "ARG BASE=python:3.11-slim\nFROM ${BASE}\n" in dockerfile
    ignored = [line for line in (ROOT / ".dockerignore").read_text().splitlines() if line and line[0] != "#"]
    assert ignored[0] == "*" and {"!libs", "!gateway", "!services", "!deploy"} <= set(ignored)

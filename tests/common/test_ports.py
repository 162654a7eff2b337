"""Free ports for local servers: outside the kernel's ephemeral range, where no outgoing
connection can take one between the check and the server's bind."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from libs.local import ports


def test_a_free_port_lies_outside_the_ephemeral_range_and_binds():
    low, high = ports.ephemeral_range()
    for _ in range(50):
        port = ports.free_port()
        assert not low <= port <= high
        assert ports.LOWEST <= port <= ports.HIGHEST
        with socket.socket() as sock:
            sock.bind((ports.HOST, port))


def test_a_port_in_use_is_never_given(monkeypatch: pytest.MonkeyPatch):
    with socket.socket() as held:
        held.bind((ports.HOST, 0))
        taken = held.getsockname()[1]
        monkeypatch.setattr(ports, "candidates", lambda: [range(taken, taken + 1)])
        assert not ports.is_free(taken)
        assert ports.free_port() != taken


def test_a_range_covering_every_port_falls_back_to_the_kernels_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    whole = tmp_path / "ip_local_port_range"
    whole.write_text(f"{ports.LOWEST}\t{ports.HIGHEST}\n")
    monkeypatch.setattr(ports, "EPHEMERAL_RANGE", whole)
    assert ports.candidates() == []
    assert ports.is_free(ports.free_port())

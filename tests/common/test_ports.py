"""Free ports for local servers: outside the kernel's ephemeral range, where no outgoing
connection can take one between the check and the server's bind."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from libs.contract.parts import METRICS_PORT_OFFSET
from libs.local import ports


def test_a_free_port_and_its_metrics_port_lie_below_the_ephemeral_range_and_bind():
    low, _ = ports.ephemeral_range()
    for _ in range(50):
        port = ports.free_port()
        assert ports.LOWEST <= port < port + METRICS_PORT_OFFSET < low
        with socket.socket() as sock:
            sock.bind((ports.HOST, port))


def test_a_port_in_use_is_never_given(monkeypatch: pytest.MonkeyPatch):
    with socket.socket() as held:
        held.bind((ports.HOST, 0))
        taken = held.getsockname()[1]
        monkeypatch.setattr(ports, "candidates", lambda: range(taken, taken + 1))
        assert not ports.is_free(taken)
        assert ports.free_port() != taken


def test_a_range_starting_too_low_falls_back_to_the_kernels_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    whole = tmp_path / "ip_local_port_range"
    whole.write_text(f"{ports.LOWEST}\t65535\n")
    monkeypatch.setattr(ports, "EPHEMERAL_RANGE", whole)
    assert len(ports.candidates()) == 0
    assert ports.is_free(ports.free_port())


def test_a_port_given_is_not_given_again_while_its_server_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ports, "RESERVED", tmp_path)
    start = ports.LOWEST
    monkeypatch.setattr(ports, "candidates", lambda: range(start, start + 2))
    given = {ports.free_port(), ports.free_port()}
    assert given == {start, start + 1}  # nothing bound to either yet: the second is the other one
    old = time.time() - ports.RESERVE_SECONDS - 1
    for reserved in (start, start + METRICS_PORT_OFFSET):
        os.utime(tmp_path / str(reserved), (old, old))
    assert ports.free_port() == start  # its reservations lapsed


def test_a_ports_metrics_port_is_not_given_as_another_servers_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Nothing listens on a server's metrics port until the server has started: the port must not be
    given to another server meanwhile, nor a port whose metrics port is this server's."""
    monkeypatch.setattr(ports, "RESERVED", tmp_path)
    first = ports.LOWEST
    proposed = iter([first, first + METRICS_PORT_OFFSET, first - METRICS_PORT_OFFSET, first + 1])
    monkeypatch.setattr(ports.random, "choice", lambda _: next(proposed))
    assert ports.free_port() == first
    assert ports.free_port() == first + 1  # neither its metrics port, nor the port whose metrics port it is

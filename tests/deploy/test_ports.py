"""Ports of a local run come from the environment, so a second copy can run beside the first."""

from __future__ import annotations

from libs.contract.parts import GATEWAY, part_ports
from libs.local.processes import part_environ


def test_default_ports_are_the_parts_own():
    assert part_ports({}) == {
        "gateway": 8080,
        "content": 8081,
        "apps": 8082,
        "personas": 8083,
        "search": 8084,
        "simulations": 8085,
        "events": 8086,
        "edge": 8087,
        "traffic": 8088,
        "analytics": 8089,
    }


def test_a_base_port_moves_every_part_and_a_part_port_moves_one():
    ports = part_ports({"PORT_BASE": "9100", "SEARCH_PORT": "9999"})
    assert ports == {
        "gateway": 9100,
        "content": 9101,
        "apps": 9102,
        "personas": 9103,
        "search": 9999,
        "simulations": 9105,
        "events": 9106,
        "edge": 9107,
        "traffic": 9108,
        "analytics": 9109,
    }


def test_parts_are_wired_to_each_others_ports(tmp_path, monkeypatch):
    monkeypatch.setattr("libs.local.processes.DATA", tmp_path)
    ports = part_ports({"PORT_BASE": "9100"})
    environ = part_environ({"DATABASE_URL": "postgresql://u@127.0.0.1/aivis"}, GATEWAY, ports)
    assert environ["CONTENT_URL"] == "http://127.0.0.1:9101"
    assert environ["GATEWAY_URL"] == "http://127.0.0.1:9100"

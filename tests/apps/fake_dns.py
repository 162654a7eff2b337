"""A DNS server on loopback (UDP) answering the records a test publishes (TXT, or any type with
`publish_record`: PTR and A for reverse DNS), built with dnspython.

Unknown names are NXDOMAIN; a name in `silent` gets no answer at all (a resolver times out); a name
in `failing` is SERVFAIL. The apps service is pointed at it with DNS_NAMESERVERS and DNS_PORT.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import cast

import dns.message
import dns.name
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset


@dataclass
class FakeDns(asyncio.DatagramProtocol):
    records: dict[str, list[str]] = field(default_factory=dict)
    typed: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    silent: set[str] = field(default_factory=set)
    failing: set[str] = field(default_factory=set)
    questions: list[str] = field(default_factory=list)
    transport: asyncio.DatagramTransport | None = None

    def reset(self) -> None:
        """No records and no questions: as a test of its own finds it."""
        for collection in (self.records, self.typed, self.silent, self.failing, self.questions):
            collection.clear()

    def asked(self, *names: str) -> list[str]:
        """The questions about `names`, in order (a shared server also hears other tests' sweeps)."""
        return [name for name in self.questions if name in names]

    def publish(self, name: str, *values: str) -> None:
        """TXT records at `name` (one record per value)."""
        self.records[name] = list(values)

    def publish_record(self, name: str, rdtype: str, *values: str) -> None:
        """Records of another type at `name` (PTR targets with their final dot, A addresses)."""
        self.typed[(name, rdtype)] = list(values)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | object, int]) -> None:
        query = dns.message.from_wire(data)
        question = query.question[0]
        name = question.name.to_text(omit_final_dot=True)
        self.questions.append(name)
        if name in self.silent:
            return
        response = dns.message.make_response(query)
        rdtype = dns.rdatatype.to_text(question.rdtype)
        if (name, rdtype) in self.typed:
            values = self.typed[(name, rdtype)]
            response.answer.append(dns.rrset.from_text_list(question.name, 60, dns.rdataclass.IN, rdtype, values))
        elif name in self.failing:
            response.set_rcode(dns.rcode.SERVFAIL)
        elif name not in self.records:
            response.set_rcode(dns.rcode.NXDOMAIN)
        elif question.rdtype == dns.rdatatype.TXT:
            quoted = [f'"{value}"' for value in self.records[name]]
            response.answer.append(dns.rrset.from_text_list(question.name, 60, dns.rdataclass.IN, "TXT", quoted))
        assert self.transport is not None
        self.transport.sendto(response.to_wire(), addr)

    @property
    def port(self) -> int:
        assert self.transport is not None
        port: int = self.transport.get_extra_info("sockname")[1]
        return port

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def start_fake_dns() -> FakeDns:
    loop = asyncio.get_running_loop()
    _, protocol = await loop.create_datagram_endpoint(FakeDns, local_addr=("127.0.0.1", 0))
    return protocol


def dns_environ(server: FakeDns) -> dict[str, str]:
    """The apps service's settings that make it ask `server`, wait 1 s at most, and sweep every second."""
    return {
        "DNS_NAMESERVERS": "127.0.0.1",
        "DNS_PORT": str(server.port),
        "DNS_TIMEOUT_SECONDS": "1",
        "DOMAIN_SWEEP_SECONDS": "1",
    }


def reclaim_environ(server: FakeDns, grace_seconds: int) -> dict[str, str]:
    """As `dns_environ`, and verified domains' records looked up again every second; one missing for
    `grace_seconds` may be taken over."""
    return {**dns_environ(server), "DOMAIN_RECHECK_SECONDS": "1", "DOMAIN_RECLAIM_GRACE_SECONDS": str(grace_seconds)}

"""Free ports for the servers a local run, a test or a benchmark starts.

A port the kernel hands out for `bind(0)` comes from its ephemeral range, the range it also takes
the local end of every outgoing connection from. Let go so that a server can bind it, such a port
can be taken in between by any connection this machine opens (the tests open thousands), and the
server then fails to start. The ports given here lie below that range, and so does the port of
the server's metrics listener, METRICS_PORT_OFFSET above it (libs/local/processes.py). Between the
check and the bind only another `free_port()` could take one: each port given is reserved for
RESERVE_SECONDS, machine-wide (a file in RESERVED), and so is its metrics port, so no other process
of this machine, nor the same stack asking for its next part's port, is given either meanwhile.
"""

from __future__ import annotations

import os
import random
import socket
import tempfile
import time
from pathlib import Path

from libs.contract.parts import METRICS_PORT_OFFSET

HOST = "127.0.0.1"
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST = 10000  # below: the well-known and registered ports of services a machine may run
ATTEMPTS = 200
# Where the ports given lately are kept, and for how long: more than a server takes to bind.
RESERVED = Path(tempfile.gettempdir()) / "aivis-ports"
RESERVE_SECONDS = 120


def ephemeral_range() -> tuple[int, int]:
    """The kernel's ephemeral port range (Linux's default where it cannot be read)."""
    try:
        low, high = EPHEMERAL_RANGE.read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def candidates() -> range:
    """The ports below the ephemeral range whose metrics port is below it too."""
    low, _ = ephemeral_range()
    return range(LOWEST, low - METRICS_PORT_OFFSET)


def is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True


def _reserve(port: int) -> bool:
    """Reserve `port` for RESERVE_SECONDS: False when another `free_port()` gave it out within them."""
    mark = RESERVED / str(port)
    try:
        os.close(os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        try:
            if time.time() - mark.stat().st_mtime < RESERVE_SECONDS:
                return False
            os.utime(mark)  # an old reservation: its server is up or gone
            return True
        except FileNotFoundError:
            return False


def free_port() -> int:
    """A port nothing is bound to, nor its metrics port: below the ephemeral range when the machine
    leaves room for it."""
    ports = candidates()
    if ports:
        RESERVED.mkdir(exist_ok=True)
        for _ in range(ATTEMPTS):
            port = random.choice(ports)
            metrics = port + METRICS_PORT_OFFSET
            # Both reserved: another server's port may be this one's metrics port, and the other way round.
            if is_free(port) and is_free(metrics) and _reserve(port) and _reserve(metrics):
                return port
    with socket.socket() as sock:  # a machine whose ephemeral range starts too low
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])

"""What a command is given from outside: the HTTP transport and the terminal.

One factory builds both (as the GitHub CLI's `cmdutil.Factory` does): `main()` uses the real
network and the real terminal; a test passes its own (an `httpx2.MockTransport`, a terminal of
80 columns) as the root command's `obj` and runs a command in-process.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass

import httpx2 as httpx
from rich.console import Console

TIMEOUT_SECONDS = 60.0
DEFAULT_WIDTH = 80


@dataclass(frozen=True)
class Terminal:
    """Whether stdout is a person's terminal (tables) or a pipe (tab-separated lines), and its width."""

    interactive: bool
    width: int = DEFAULT_WIDTH


@dataclass(frozen=True)
class Factory:
    transport: httpx.BaseTransport | None = None  # None: the network
    terminal: Terminal | None = None  # None: sense stdout when asked

    def http_client(self, base_url: str) -> httpx.Client:
        return httpx.Client(base_url=base_url, timeout=TIMEOUT_SECONDS, transport=self.transport)

    def stdout(self) -> Terminal:
        if self.terminal is not None:
            return self.terminal
        return Terminal(sys.stdout.isatty(), shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)

    def prompts(self) -> bool:
        """Whether a person is there to answer a question: stdin and stdout are a terminal."""
        if self.terminal is not None:
            return self.terminal.interactive
        return sys.stdin.isatty() and sys.stdout.isatty()

    def console(self, stderr: bool = False) -> Console:
        """A rich console on stdout (as wide as the terminal) or stderr (progress, notes)."""
        terminal = self.stdout()
        stream = sys.stderr if stderr else sys.stdout
        return Console(file=stream, width=terminal.width, highlight=False, soft_wrap=False)

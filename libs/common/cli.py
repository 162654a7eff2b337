"""What the operator command lines of the parts share."""

from __future__ import annotations

import argparse
import uuid


def parse_uuid(text: str) -> str:
    """An argparse type: a UUID in any of Python's accepted spellings, returned canonical."""
    try:
        return str(uuid.UUID(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a UUID: {text!r}") from None

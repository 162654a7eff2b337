"""schemathesis hooks for tests/e2e/test_openapi_contract.py (loaded through SCHEMATHESIS_HOOKS).

Generated requests repeat values (an `Idempotency-Key` of "0" on many different bodies), which the
gateway rightly refuses as a reused key. A client sends a key of its own per request: a valid key
is replaced by a fresh one, an invalid one is left for the gateway to refuse. A client's `If-Match`
names an ETag it was given; a made-up one is a 412 by design, so it is not sent.
"""

from __future__ import annotations

import uuid
from typing import Any

import schemathesis

from gateway.edge.idempotency import HEADER, MAX_KEY_LENGTH


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    if case.headers is None:
        return
    case.headers.pop("If-Match", None)
    key = case.headers.get(HEADER)
    if isinstance(key, str) and 1 <= len(key) <= MAX_KEY_LENGTH:
        case.headers[HEADER] = uuid.uuid4().hex

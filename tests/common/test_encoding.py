"""JSON encoding: every value the services hold, including integers beyond 64 bits."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from decimal import Decimal

from libs.common.encoding import dumps

AT = datetime(2026, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)
ENCODED_AT_AND_ID = b'"at":"2026-01-02T03:04:05.006000+00:00","id":"00000000-0000-0000-0000-000000000005"'


def test_datetimes_uuids_and_decimals_are_encoded():
    assert dumps({"at": AT, "id": uuid.UUID(int=5), "n": Decimal("1.5")}) == b"{" + ENCODED_AT_AND_ID + b',"n":1.5}'


def test_integers_beyond_64_bits_are_encoded_exactly_and_the_rest_as_on_the_fast_path():
    huge = 10**308 + 1
    encoded = dumps({"big": huge, "at": AT, "id": uuid.UUID(int=5), "s": "é"})
    assert json.loads(encoded)["big"] == huge
    assert encoded.endswith(b"," + ENCODED_AT_AND_ID + ',"s":"é"}'.encode())

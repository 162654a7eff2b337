"""The engine catalog's clients: one for every engine of the contract, each a client of the protocol."""

from __future__ import annotations

import sys

from libs.common.engines.access import engine_accesses
from libs.common.engines.catalog import CLIENTS, client_class, engines
from libs.common.settings import Env
from libs.contract.engines import ENGINE_IDS


def test_every_engine_has_a_client_that_answers_and_closes():
    assert sorted(CLIENTS) == sorted(ENGINE_IDS)
    for engine_id in ENGINE_IDS:
        client = client_class(engine_id)
        assert callable(client.ask) and callable(client.close)


def test_only_configured_engines_get_a_client():
    accesses = engine_accesses(Env({"PERPLEXITY_API_KEY": "k"}))
    assert list(engines(accesses, 5.0, 0)) == ["perplexity-sonar"]
    assert "libs.common.engines.perplexity_sonar" in sys.modules

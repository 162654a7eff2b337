"""The onnxruntime runtime against sentence-transformers' own vectors of all-MiniLM-L6-v2.

fixtures/reference_embeddings.json holds sentences and the vectors sentence-transformers
(PyTorch) gave for them; the last sentence is longer than the model's 256 tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from services.search.app import shared_embedder
from services.search.embedding import DIMENSIONS, MAX_TOKENS

REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "reference_embeddings.json").read_text())


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return shared_embedder().embed(REFERENCE["sentences"])


def test_every_vector_matches_the_reference(vectors):
    reference = np.asarray(REFERENCE["embeddings"], dtype=np.float32)
    assert vectors.shape == reference.shape == (len(REFERENCE["sentences"]), DIMENSIONS)
    cosines = (vectors * reference).sum(axis=1) / np.linalg.norm(reference, axis=1)
    assert cosines.min() >= 0.9999999
    assert np.abs(vectors - reference).max() < 1e-5


def test_vectors_are_unit_length(vectors):
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_text_past_the_models_window_is_cut_off():
    embedder = shared_embedder()
    long_text = REFERENCE["sentences"][-1]
    assert embedder.token_count(long_text) == MAX_TOKENS
    [whole, extended] = embedder.embed([long_text, long_text + " and then a great deal more" * 20])
    assert float(whole @ extended) > 0.99999


def test_a_batch_equals_one_at_a_time():
    embedder = shared_embedder()
    texts = ["short", "a somewhat longer sentence about coffee"]
    together = embedder.embed(texts)
    apart = np.vstack([embedder.embed([text]) for text in texts])
    assert np.allclose(together, apart, atol=1e-6)

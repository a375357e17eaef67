"""A BERT encoder with mean pooling, written as an ONNX graph from safetensors weights.

The graph takes ``input_ids`` and ``attention_mask`` (int64, ``(batch, tokens)``) and returns
``pooled`` (float32, ``(batch, hidden)``): the mean of the last layer's token vectors over the
attention mask, not yet normalised. Token types are all 0 (one-segment texts), so the type
embedding's first row is a constant. It is the forward pass of Hugging Face's ``BertModel``
(absolute positions, post-LayerNorm, GELU with erf) in inference mode: no dropout, no pooler.

Weights are the tensors of a ``BertModel`` checkpoint as sentence-transformers saves them
(``embeddings.word_embeddings.weight``, ``encoder.layer.0.attention.self.query.weight``, ...,
optionally prefixed with ``bert.``). Linear weights are stored ``(out, in)`` and transposed
here once; the query projection is pre-scaled by ``1/sqrt(head size)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sedimem.errors import ConfigurationError

__all__ = ["BertShape", "build_bert_graph"]

_OPSET = 17  # LayerNormalization is an operator from opset 17 on
_MASKED = -10000.0  # added to the attention scores of padding (exp underflows to 0)


@dataclass(frozen=True)
class BertShape:
    """What the graph needs from a BERT ``config.json``."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    max_positions: int
    layer_norm_eps: float

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> BertShape:
        try:
            shape = cls(
                hidden=int(config["hidden_size"]),
                layers=int(config["num_hidden_layers"]),
                heads=int(config["num_attention_heads"]),
                intermediate=int(config["intermediate_size"]),
                max_positions=int(config["max_position_embeddings"]),
                layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigurationError(f"not a BERT config.json: {exc!r} missing or invalid") from exc
        if config.get("model_type", "bert") != "bert" or shape.hidden % shape.heads:
            raise ConfigurationError(
                f"unsupported encoder config (model_type {config.get('model_type')!r}, "
                f"hidden {shape.hidden}, heads {shape.heads}): a BERT model is expected"
            )
        if config.get("hidden_act", "gelu") != "gelu" or config.get(
            "position_embedding_type", "absolute"
        ) not in ("absolute", None):
            raise ConfigurationError("only BERT with GELU and absolute positions is supported")
        return shape


Array = npt.NDArray[np.float32]


class _Weights:
    """The checkpoint's tensors by their ``BertModel`` name, checked for shape on use."""

    def __init__(self, tensors: Mapping[str, npt.NDArray[Any]]) -> None:
        self._tensors = tensors
        self._prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

    def get(self, name: str, shape: tuple[int, ...]) -> Array:
        try:
            tensor = self._tensors[self._prefix + name]
        except KeyError:
            raise ConfigurationError(f"the encoder weights have no tensor {name!r}") from None
        if tuple(tensor.shape) != shape:
            raise ConfigurationError(
                f"encoder tensor {name!r} has shape {tuple(tensor.shape)}, expected {shape}"
            )
        return np.ascontiguousarray(tensor, dtype=np.float32)

    def vocabulary(self) -> int:
        """Rows of the word embedding table."""
        table = self._tensors.get(self._prefix + "embeddings.word_embeddings.weight")
        if table is None or table.ndim != 2:
            raise ConfigurationError("the encoder weights have no 2-D word embedding table")
        return int(table.shape[0])


def build_bert_graph(tensors: Mapping[str, npt.NDArray[Any]], shape: BertShape) -> bytes:
    """The serialised ONNX model (``ModelProto``) of the encoder and mean pooling.

    About a second for MiniLM-L6 (most of it copying 90 MB of weights into protobuf), so the
    graph is built in memory at load rather than cached on disk. ``onnx.checker`` is left to
    the tests (it would serialise the model once more).
    """
    from onnx import TensorProto, helper, numpy_helper

    weights = _Weights(tensors)
    hidden, heads = shape.hidden, shape.heads
    head_size = hidden // heads
    nodes: list[Any] = []
    initializers: list[Any] = []

    def const(name: str, value: npt.NDArray[Any]) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attributes: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attributes))
        return output

    def linear(x: str, prefix: str, n_in: int, n_out: int, out: str, scale: float = 1.0) -> str:
        weight = weights.get(f"{prefix}.weight", (n_out, n_in)).T * np.float32(scale)
        bias = weights.get(f"{prefix}.bias", (n_out,)) * np.float32(scale)
        product = node("MatMul", [x, const(f"{prefix}.w", weight)], f"{out}.mm")
        return node("Add", [product, const(f"{prefix}.b", bias)], out)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        gamma = const(f"{prefix}.g", weights.get(f"{prefix}.weight", (hidden,)))
        beta = const(f"{prefix}.beta", weights.get(f"{prefix}.bias", (hidden,)))
        return node(
            "LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=shape.layer_norm_eps
        )

    # -- embeddings: word + position + token type 0, then LayerNorm ---------------------------
    words = const(
        "word_embeddings",
        weights.get("embeddings.word_embeddings.weight", (weights.vocabulary(), hidden)),
    )
    positions = const(
        "position_embeddings",
        weights.get("embeddings.position_embeddings.weight", (shape.max_positions, hidden)),
    )
    token_type = weights.get("embeddings.token_type_embeddings.weight", (2, hidden))[0]
    const("zero", np.array([0], dtype=np.int64))
    const("one_axis", np.array([1], dtype=np.int64))
    node("Shape", ["input_ids"], "seq_len", start=1, end=2)
    node("Slice", [positions, "zero", "seq_len", "zero"], "pos")
    node("Gather", [words, "input_ids"], "tok")
    node("Add", ["tok", "pos"], "tok_pos")
    node("Add", ["tok_pos", const("token_type_0", token_type)], "emb")
    x = layer_norm("emb", "embeddings.LayerNorm", "h0")

    # -- the additive attention mask: 0 for tokens, _MASKED for padding, (batch, 1, 1, s) ----
    node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    node("Unsqueeze", ["mask_f", const("mask_axes", np.array([1, 2], np.int64))], "mask_4d")
    node("Sub", ["mask_4d", const("one_f", np.array(1.0, np.float32))], "mask_neg")
    node("Mul", ["mask_neg", const("masked", np.array(-_MASKED, np.float32))], "mask_add")

    split_heads = const("split_heads", np.array([0, 0, heads, head_size], np.int64))
    merge_heads = const("merge_heads", np.array([0, 0, hidden], np.int64))
    root2 = const("root2", np.array(math.sqrt(2.0), np.float32))
    half = const("half", np.array(0.5, np.float32))
    one = "one_f"

    for i in range(shape.layers):
        p = f"encoder.layer.{i}"
        a = f"{p}.attention"
        q = linear(x, f"{a}.self.query", hidden, hidden, f"l{i}.q", 1.0 / math.sqrt(head_size))
        k = linear(x, f"{a}.self.key", hidden, hidden, f"l{i}.k")
        v = linear(x, f"{a}.self.value", hidden, hidden, f"l{i}.v")
        qh = node("Transpose", [node("Reshape", [q, split_heads], f"l{i}.q4")], f"l{i}.qh",
                  perm=[0, 2, 1, 3])  # fmt: skip
        kh = node("Transpose", [node("Reshape", [k, split_heads], f"l{i}.k4")], f"l{i}.kh",
                  perm=[0, 2, 3, 1])  # fmt: skip
        vh = node("Transpose", [node("Reshape", [v, split_heads], f"l{i}.v4")], f"l{i}.vh",
                  perm=[0, 2, 1, 3])  # fmt: skip
        scores = node("Add", [node("MatMul", [qh, kh], f"l{i}.qk"), "mask_add"], f"l{i}.sc")
        probs = node("Softmax", [scores], f"l{i}.p", axis=-1)
        context = node("MatMul", [probs, vh], f"l{i}.ctx4")
        context = node("Transpose", [context], f"l{i}.ctxt", perm=[0, 2, 1, 3])
        context = node("Reshape", [context, merge_heads], f"l{i}.ctx")
        attended = linear(context, f"{a}.output.dense", hidden, hidden, f"l{i}.ao")
        node("Add", [attended, x], f"l{i}.res1")
        x1 = layer_norm(f"l{i}.res1", f"{a}.output.LayerNorm", f"l{i}.h1")
        up = linear(x1, f"{p}.intermediate.dense", hidden, shape.intermediate, f"l{i}.up")
        # GELU(u) = u * 0.5 * (1 + erf(u / sqrt(2)))
        node("Erf", [node("Div", [up, root2], f"l{i}.u2")], f"l{i}.erf")
        node("Mul", [node("Add", [f"l{i}.erf", one], f"l{i}.erf1"), half], f"l{i}.cdf")
        gelu = node("Mul", [up, f"l{i}.cdf"], f"l{i}.gelu")
        down = linear(gelu, f"{p}.output.dense", shape.intermediate, hidden, f"l{i}.down")
        node("Add", [down, x1], f"l{i}.res2")
        x = layer_norm(f"l{i}.res2", f"{p}.output.LayerNorm", f"l{i}.h2")

    # -- mean pooling over the attention mask ------------------------------------------------
    node("Unsqueeze", ["mask_f", const("last_axis", np.array([2], np.int64))], "mask_3d")
    node("Mul", [x, "mask_3d"], "masked_h")
    node("ReduceSum", ["masked_h", "one_axis"], "sum_h", keepdims=0)
    node("ReduceSum", ["mask_3d", "one_axis"], "count", keepdims=0)
    node("Max", ["count", const("min_count", np.array(1e-9, np.float32))], "count_1")
    node("Div", ["sum_h", "count_1"], "pooled")

    graph = helper.make_graph(
        nodes,
        "bert_mean_pooling",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", hidden])],
        initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", _OPSET)], producer_name="sedimem"
    )
    model.ir_version = 8  # read by every onnxruntime since 1.10
    data: bytes = model.SerializeToString()
    return data

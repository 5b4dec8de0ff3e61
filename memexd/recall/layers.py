"""The encoder's transformer layers as an ONNX graph run by onnxruntime,
with 8-bit matrix products.

Where the time went (``bench/embedding_breakdown.py``): nearly all of
embedding a note was the layers' four weight products. This CPU multiplies
8-bit integers several times as fast as 32-bit floats (AVX-512 VNNI, AVX2
elsewhere), through onnxruntime's ``MatMulInteger`` (unsigned activations
times signed weights). Each token's activations are rounded to 8 bits with
a scale of its own, so a text's vector never depends on the texts batched
with it (onnxruntime's own dynamic quantisation takes one scale a batch:
vectors moved by up to 0.013 in cosine with their batch-mates); the
weights, from the model's 4-bit blocks, with a scale per output column.
Measured on short notes, two cores: about twice the rate of the same
layers in 32-bit floats, vectors within a cosine of 0.998 of the C
engine's (``docs/recall.md``, "From written to findable").

Attention, GELU and the layer norms stay in 32-bit floats. The graph is
built in memory from the weights at start (a second or so); nothing is
written to disk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

__all__ = ["LayerWeights", "Layers"]

FloatArray = numpy.ndarray[Any, numpy.dtype[numpy.float32]]
_OPSET = [helper.make_opsetid("", 17)]
_MASKED = -1e4  # added to a padding token's attention score: exp() of it is 0


@dataclass(frozen=True)
class LayerWeights:
    """One layer's weights as 32-bit floats, products laid out for ``x @ W``."""

    qkv: FloatArray  # [H, 3H]: queries, keys and values in one product
    qkv_b: FloatArray
    out: FloatArray
    out_b: FloatArray
    ln1: tuple[FloatArray, FloatArray]
    up: FloatArray
    up_b: FloatArray
    down: FloatArray
    down_b: FloatArray
    ln2: tuple[FloatArray, FloatArray]


class Layers:
    """The layers of one model: padded batches of token vectors in, the last
    hidden states out (``[batch, tokens, hidden]``)."""

    def __init__(self, layers: list[LayerWeights], heads: int, eps: float, threads: int) -> None:
        graph = _Graph(heads, eps)
        state = "x"
        for n, weights in enumerate(layers):
            state = graph.layer(state, weights, f"l{n}.")
        model = graph.model(state, hidden=layers[0].qkv.shape[0])
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        # idle workers sleep rather than spin: the engine stores the last
        # batch on the same cores meanwhile
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = onnxruntime.InferenceSession(
                model.SerializeToString(), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime's errors derive from Exception alone
            raise RuntimeError(f"onnxruntime cannot run the encoder: {exc}") from exc

    def __call__(self, x: FloatArray, lengths: list[int]) -> FloatArray:
        """``x``: the embedded tokens, ``[batch, tokens, hidden]``, each row
        padded after its ``lengths[i]`` tokens (padding is never attended to)."""
        bias = numpy.full((len(lengths), 1, 1, x.shape[1]), _MASKED, numpy.float32)
        for row, length in enumerate(lengths):
            bias[row, ..., :length] = 0.0
        (out,) = self._session.run(["y"], {"x": x, "bias": bias})
        result: FloatArray = out
        return result


class _Graph:
    """The ONNX nodes and initialisers of the layers, built one at a time."""

    def __init__(self, heads: int, eps: float) -> None:
        self.heads, self.eps = heads, eps
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []

    def constant(self, name: str, value: Any, dtype: Any = numpy.float32) -> str:
        self.weights.append(numpy_helper.from_array(numpy.asarray(value, dtype), name))
        return name

    def op(self, kind: str, inputs: list[str], output: str, **attributes: Any) -> str:
        node = helper.make_node(kind, inputs, [output], **attributes)
        self.nodes.append(node)
        return output

    def product(self, x: str, weight: FloatArray, bias: FloatArray, name: str) -> str:
        """``x @ weight + bias``, the product in 8 bits: each token's
        activations rounded with a scale of its own (so a text's vector
        never depends on its batch), the weights with a scale per column."""
        scale = numpy.maximum(numpy.abs(weight).max(axis=0), 1e-12) / 127.0
        levels = numpy.clip(numpy.rint(weight / scale), -127, 127).astype(numpy.int8)
        step = self.row_step(x, name)
        rounded = self.op("Round", [self.op("Div", [x, step], name + "xs")], name + "r")
        # unsigned, 128 the zero: onnxruntime's fast kernels take u8 times s8
        shifted = self.op("Add", [rounded, self.constant(name + "128", 128.0)], name + "sh")
        small = self.op("Cast", [shifted], name + "u8", to=TensorProto.UINT8)
        inputs = [small, self.constant(name + "w", levels, numpy.int8),
                  self.constant(name + "z", 128, numpy.uint8)]  # fmt: skip
        wide = self.op("MatMulInteger", inputs, name + "i32")
        as_float = self.op("Cast", [wide], name + "f", to=TensorProto.FLOAT)
        product = self.op("Mul", [as_float, step], name + "p")
        scaled = self.op("Mul", [product, self.constant(name + "s", scale)], name + "ps")
        return self.op("Add", [scaled, self.constant(name + "b", bias)], name + "y")

    def row_step(self, x: str, name: str) -> str:
        """Each token's rounding step: its largest magnitude over 127."""
        top = self.op("ReduceMax", [self.op("Abs", [x], name + "abs")], name + "max", axes=[-1])
        step = self.op("Div", [top, self.constant(name + "127", 127.0)], name + "d")
        return self.op("Max", [step, self.constant(name + "eps", 1e-12)], name + "step")

    def layer(self, x: str, w: LayerWeights, at: str) -> str:
        """One post-norm encoder layer (BERT's)."""
        h = w.qkv.shape[0]
        qkv = self.product(x, w.qkv, w.qkv_b, at + "qkv.")
        q, k, v = at + "q", at + "k", at + "v"
        split = self.constant(at + "split", [h, h, h], numpy.int64)
        self.nodes.append(helper.make_node("Split", [qkv, split], [q, k, v], axis=2))
        context = self.attention(q, k, v, at, h // self.heads)
        projected = self.product(context, w.out, w.out_b, at + "out.")
        x = self.norm(self.op("Add", [projected, x], at + "r1"), w.ln1, at + "ln1.")
        middle = self.gelu(self.product(x, w.up, w.up_b, at + "up."), at + "gelu.")
        fed = self.product(middle, w.down, w.down_b, at + "down.")
        return self.norm(self.op("Add", [fed, x], at + "r2"), w.ln2, at + "ln2.")

    def attention(self, q: str, k: str, v: str, at: str, head: int) -> str:
        shape = self.constant(at + "heads", [0, 0, self.heads, head], numpy.int64)

        def split(name: str, order: list[int]) -> str:
            return self.op("Transpose", [self.op("Reshape", [name, shape], name + "r")],
                           name + "t", perm=order)  # fmt: skip

        scores = self.op("MatMul", [split(q, [0, 2, 1, 3]), split(k, [0, 2, 3, 1])], at + "s")
        factor = self.constant(at + "scale", 1 / math.sqrt(head))
        masked = self.op("Add", [self.op("Mul", [scores, factor], at + "ss"), "bias"], at + "sm")
        weights = self.op("Softmax", [masked], at + "p", axis=-1)
        mixed = self.op("MatMul", [weights, split(v, [0, 2, 1, 3])], at + "c")
        back = self.op("Transpose", [mixed], at + "ct", perm=[0, 2, 1, 3])
        flat = self.constant(at + "flat", [0, 0, self.heads * head], numpy.int64)
        return self.op("Reshape", [back, flat], at + "cr")

    def norm(self, x: str, weights: tuple[FloatArray, FloatArray], at: str) -> str:
        scale, shift = (self.constant(at + n, w) for n, w in zip("wb", weights, strict=True))
        return self.op("LayerNormalization", [x, scale, shift], at + "y", axis=-1, epsilon=self.eps)

    def gelu(self, x: str, at: str) -> str:
        """GELU with erf (BERT's); onnxruntime fuses these nodes into one."""
        scaled = self.op("Mul", [x, self.constant(at + "k", 1 / math.sqrt(2))], at + "xs")
        erf = self.op("Erf", [scaled], at + "erf")
        cdf = self.op("Add", [erf, self.constant(at + "one", 1.0)], at + "cdf")
        doubled = self.op("Mul", [x, cdf], at + "xd")
        return self.op("Mul", [doubled, self.constant(at + "half", 0.5)], at + "y")

    def model(self, output: str, hidden: int) -> onnx.ModelProto:
        tokens = ["batch", "tokens"]
        inputs = [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [*tokens, hidden]),
            helper.make_tensor_value_info("bias", TensorProto.FLOAT, ["batch", 1, 1, "tokens"]),
        ]
        self.nodes.append(helper.make_node("Identity", [output], ["y"]))
        outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [*tokens, hidden])]
        graph = helper.make_graph(self.nodes, "encoder", inputs, outputs, self.weights)
        model = helper.make_model(graph, opset_imports=_OPSET)
        model.ir_version = 8
        return model

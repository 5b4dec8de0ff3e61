"""Reads about a walk's items, started while the walk goes on."""

from __future__ import annotations

import asyncio

import pytest

from memexd.integrity import ahead
from memexd.integrity.ahead import Ahead


class Reader:
    """Reads that finish when told to, recording the parts asked for."""

    def __init__(self) -> None:
        self.parts: list[list[str]] = []
        self.gate = asyncio.Event()
        self.cancelled = 0

    async def read(self, ids: list[str]) -> dict[str, str]:
        self.parts.append(ids)
        try:
            await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return {i: i.upper() for i in ids}


async def test_parts_are_read_while_ids_come_and_the_rest_at_the_end() -> None:
    reader = Reader()
    async with Ahead(reader.read, part=3) as reads:
        reads.add(["a", "b"])
        await asyncio.sleep(0)
        assert reader.parts == []  # less than a part: nothing to read yet
        reads.add(["c", "d"])
        await asyncio.sleep(0)
        assert reader.parts == [["a", "b", "c"]]  # one part, started on the side
        reads.add(["e", "f", "g"])
        await asyncio.sleep(0)
        assert len(reader.parts) == ahead.AT_ONCE  # no more than AT_ONCE at a time
        reader.gate.set()
        found = await reads.result()
    assert found == {i: i.upper() for i in "abcdefg"}
    assert sorted(i for p in reader.parts for i in p) == list("abcdefg")
    assert all(len(p) <= 3 for p in reader.parts)


async def test_a_walk_that_fails_cancels_the_reads_it_started() -> None:
    reader = Reader()

    async def failing_walk() -> None:
        async with Ahead(reader.read, part=1) as reads:
            reads.add(["a"])
            await asyncio.sleep(0)
            raise RuntimeError("walk failed")

    with pytest.raises(RuntimeError, match="walk failed"):
        await failing_walk()
    assert reader.parts == [["a"]]
    assert reader.cancelled == 1


async def test_a_failed_read_is_raised() -> None:
    async def broken(ids: list[str]) -> dict[str, str]:
        raise ValueError(f"cannot read {ids}")

    async def walk() -> None:
        async with Ahead(broken, part=2) as reads:
            reads.add(["a", "b", "c"])
            await reads.result()

    with pytest.raises(ValueError, match="cannot read"):
        await walk()

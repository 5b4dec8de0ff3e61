"""Windows of id keys (memexd/history/windows.py), on the engines: a walk of
windows covers every item once, in id order, each window holding at least
what was asked for (unless it reaches the last key) and less than twice it
(unless the items past what was asked share one key), wherever the items crowd."""

from __future__ import annotations

from memexd.history.windows import Window, Windows
from memexd.ids import ID_KEY_END, id_key, uuid7_at
from tests.support import Api

# a few early items, a crowd sharing one key, then a spread
SPREAD = [1_700_000_000_000 + i for i in range(6)]
CROWD = [1_750_000_000_000] * 30
LATE = [1_800_000_000_000 + 997 * i for i in range(24)]


async def test_a_walk_of_windows_covers_every_item_once_in_order(api: Api) -> None:
    made = sorted([(await api.create(id=uuid7_at(ms)))["id"] for ms in SPREAD + CROWD + LATE])
    for target in (1, 4, 7):
        windows = Windows(api.graph)
        for _ in range(2):  # the second walk starts from what the first learnt
            walked = await walk(api, windows, target)
            ids = [i for _, inside in walked for i in inside]
            assert ids == made, target
            for n, (window, inside) in enumerate(walked):
                last = n == len(walked) - 1
                assert len(inside) >= target or last, (target, window)
                # a window can only hold the crowd whole: one key, many items
                crowd = len({id_key(i) for i in inside[target:]}) == 1
                assert len(inside) < 2 * target or crowd, (target, window, len(inside))
                assert all(window.lo <= id_key(i) < window.hi for i in inside)


async def walk(api: Api, windows: Windows, target: int) -> list[tuple[Window, list[str]]]:
    walked, lo = [], 0
    while lo < ID_KEY_END:
        window = await windows.after(lo, target)
        assert window.lo == lo < window.hi
        rows = await api.graph.read("item_ids_in_keys", {"lo": window.lo, "hi": window.hi})
        walked.append((window, sorted(r["id"] for r in rows)))
        lo = window.hi
    return walked

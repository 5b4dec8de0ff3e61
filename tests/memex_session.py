"""Random MemEX sessions, run in memex-python (the reference), as a command log.

A session is a list of operations drawn by hypothesis (:func:`sessions`) and run
in order in memex-python (:func:`run_session`): its reducers (``apply_command``,
``apply_intent_command``, ``apply_task_command``) and its integrity functions
(``mark_contradiction``, ``resolve_contradiction``, ``mark_alias``,
``cascade_retract``). Ids come from memex-python's own factories; its clock and
random bytes are pinned to the plan, so a plan always gives the same ids (and
hypothesis can replay and shrink it).

The *command log* is what a MemEX peer hands memexd: each command applied, and
for the integrity functions (functions in MemEX, not commands) the commands
equivalent to the events they emitted:

- ``edge.created`` → ``edge.create`` with that edge;
- ``edge.retracted`` (cause ``edge.retract``) → ``edge.retract`` of that edge;
- ``edge.retracted`` (cause ``memory.retract``) → nothing: the ``memory.retract``
  before it implies it, as it does in MemEX;
- ``memory.updated`` → ``memory.update`` with the fields that changed;
- ``memory.retracted`` → ``memory.retract`` of that item;

with the function's ``author`` and ``reason``. Each :class:`Step` keeps the
MemEX wire events (``model_dump(mode="json", by_alias=True, exclude_none=True)``)
its command stands for; :func:`refold` checks the mapping (the log alone,
through memex-python's reducers, gives those events and the same state).

Sessions keep to what memexd accepts by design (docs/replay.md): the factories
mint UUIDv7 ids for items and UUIDs for the rest; ids are never re-used; edges
join live items; item and edge partials hold no explicit null and scores stay
in [0, 1]; edge kinds match memexd's pattern; names are non-empty without
control characters; integers fit in 64 bits. A lifecycle command memex-python
refuses (an invalid transition) stays in the log, with the code memexd must
answer for it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any
from unittest import mock

import memex
import memex._time
import memex._uuid
from hypothesis import strategies as st
from memex.intent import InvalidIntentTransitionError
from memex.task import InvalidTaskTransitionError
from pydantic import BaseModel

__all__ = ["GHOST_ITEMS", "GHOST_PLANS", "Op", "Plan", "Session", "Step", "fold", "refold",
           "run_session", "sessions", "wire"]  # fmt: skip

JSON = dict[str, Any]
#: Ids that never name anything (UUIDv4s: the factories mint only UUIDv7s).
GHOST_ITEMS = ("00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2")
GHOST_PLANS = ("00000000-0000-4000-8000-0000000000b1",)
_REFUSED = (InvalidIntentTransitionError, InvalidTaskTransitionError)


def wire(model: BaseModel) -> JSON:
    """MemEX's wire JSON of a record, an event or an export."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@dataclass(frozen=True)
class Op:
    name: str
    args: JSON


@dataclass(frozen=True)
class Plan:
    seed: int
    start_ms: int
    ops: tuple[Op, ...]


@dataclass
class Step:
    """One command of the log, the memex-python call it came from, and the
    MemEX events it stands for (or the code of its refusal)."""

    command: JSON
    events: list[JSON]
    made_by: str
    code: str | None = None


@dataclass
class Session:
    steps: list[Step] = field(default_factory=list)
    mem: memex.GraphState = field(default_factory=memex.create_graph_state)
    intents: memex.IntentState = field(default_factory=memex.create_intent_state)
    tasks: memex.TaskState = field(default_factory=memex.create_task_state)
    #: every id the session named: created (live or not) and ghosts
    item_ids: list[str] = field(default_factory=lambda: list(GHOST_ITEMS))
    intent_ids: list[str] = field(default_factory=list)
    task_ids: list[str] = field(default_factory=list)

    def log(self) -> list[JSON]:
        return [s.command for s in self.steps]

    def failures(self) -> list[tuple[int, str]]:
        return [(i, s.code) for i, s in enumerate(self.steps) if s.code is not None]

    def export(self) -> JSON:
        """memex-python's ``export_slice`` of every id the session named."""
        plans = {"intent_ids": [*self.intent_ids, *GHOST_PLANS],
                 "task_ids": [*self.task_ids, *GHOST_PLANS]}  # fmt: skip
        return wire(memex.export_slice(self.mem, self.intents, self.tasks,
                                       memory_ids=self.item_ids, **plans))  # fmt: skip


@contextmanager
def _pinned(seed: int, start_ms: int) -> Iterator[list[int]]:
    """memex-python's clock and random bytes, from the plan (``uuid7`` reads both)."""
    clock, rng = [start_ms], random.Random(seed)

    def now_ms() -> int:
        return clock[0]

    with (
        mock.patch.object(memex._uuid, "os", SimpleNamespace(urandom=rng.randbytes)),
        mock.patch.object(memex._time, "now_ms", now_ms),
    ):
        yield clock


def run_session(plan: Plan) -> Session:
    run = _Run(Session())
    with _pinned(plan.seed, plan.start_ms) as clock:
        for op in plan.ops:
            clock[0] += op.args.get("tick", 0)
            _OPS[op.name](run, op.args)
    return run.s


def fold(s: Session, command: JSON) -> list[JSON]:
    """Apply one command to ``s`` with memex-python's reducer for its kind; its events."""
    kind = command["type"].split(".")[0]
    if kind == "intent":
        s.intents, events = memex.apply_intent_command(s.intents, command)
    elif kind == "task":
        s.tasks, events = memex.apply_task_command(s.tasks, command)
    else:
        s.mem, events = memex.apply_command(s.mem, command)
    return [wire(e) for e in events]


def refold(session: Session) -> None:
    """The log alone, through memex-python's reducers, gives each step's events
    (or its refusal) and the session's final state: the log stands for it."""
    again = Session(item_ids=session.item_ids, intent_ids=session.intent_ids,
                    task_ids=session.task_ids)  # fmt: skip
    for i, step in enumerate(session.steps):
        try:
            events = fold(again, step.command)
        except _REFUSED:
            assert step.code is not None, f"step {i} was refused: {step.command}"
            continue
        assert (step.code, step.events) == (None, events), f"step {i}: {step.command}"
    assert _records(again.export()) == _records(session.export())


def _records(export: JSON) -> dict[str, list[str]]:
    """An export's records, canonical and sorted (MemEX lists them in hash order)."""
    return {k: sorted(json.dumps(r, sort_keys=True) for r in v) for k, v in export.items()}


class _Run:
    """A session being run: its state, and picks turned into ids."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def live(self) -> list[str]:
        return list(self.s.mem.items)

    def pick(self, values: list[str], n: int) -> str | None:
        return values[n % len(values)] if values else None

    def ids(self, fields: JSON, parents: list[str] | None = None) -> JSON:
        """``fields`` with picks made ids: items among all named, intents and
        tasks among theirs and a ghost, ``parent`` among ``parents``; ``None``
        (a clear, in an update) stays."""
        out: JSON = {}
        for key, value in fields.items():
            name = _ID_KEYS.get(key, key)
            if value is None or (key not in _ID_KEYS and key not in _ID_LISTS):
                out[name] = value
            elif key in _ID_LISTS:
                out[name] = [self.s.item_ids[n % len(self.s.item_ids)] for n in value]
            else:
                among = {"intent": self.s.intent_ids, "task": self.s.task_ids}.get(key, parents)
                out[name] = [*(among or []), *GHOST_PLANS][value % (len(among or []) + 1)]
        return out

    def step(self, command: JSON, by: str) -> None:
        """Apply ``command``; a refused lifecycle command is a step too."""
        try:
            events = fold(self.s, command)
        except _REFUSED:
            code = f"INVALID_{command['type'].split('.')[0].upper()}_TRANSITION"
            self.s.steps.append(Step(command, [], by, code))
            return
        self.s.steps.append(Step(command, events, by))

    def integrity(self, result: Any, by: str, args: JSON) -> None:
        """An integrity function's events, as commands (module docstring)."""
        items = {k: wire(v) for k, v in self.s.mem.items.items()}
        why: JSON = {k: args[k] for k in ("author", "reason") if k in args}
        for event in map(wire, result.events):
            if event["type"] == "edge.retracted" and event["cause_type"] == "memory.retract":
                self.s.steps[-1].events.append(event)
            else:
                self.s.steps.append(Step(_command_for(event, items, why), [event], by))
        self.s.mem = result.state


_ID_KEYS = {"intent": "intent_id", "task": "task_id", "parent": "parent_id"}
_ID_LISTS = ("parents", "root_memory_ids", "input_memory_ids", "output_memory_ids")


def _command_for(event: JSON, items: dict[str, JSON], why: JSON) -> JSON:
    kind = event["type"]
    if kind == "edge.created":
        return {"type": "edge.create", "edge": event["edge"]}
    if kind == "edge.retracted":
        return {"type": "edge.retract", "edge_id": event["edge"]["edge_id"], **why}
    item = event["item"]
    if kind == "memory.retracted":
        return {"type": "memory.retract", "item_id": item["id"], **why}
    assert kind == "memory.updated", event
    before, items[item["id"]] = items[item["id"]], item
    assert before.keys() <= item.keys(), "an integrity function cleared a field"
    partial = {k: v for k, v in item.items() if k not in before or before[k] != v}
    return {"type": "memory.update", "item_id": item["id"], "partial": partial, **why}


# ---------------------------------------------------------------- the operations


def _why(a: JSON) -> JSON:
    return {k: a[k] for k in ("author", "reason", "basis") if k in a}


def _fields(a: JSON) -> JSON:
    """A record's drawn fields (without the op's own ``tick`` and ``raw``)."""
    return {k: v for k, v in a.items() if k not in ("tick", "raw")}


def _item(run: _Run, a: JSON) -> None:
    item = memex.create_memory_item(**run.ids(_fields(a)))
    run.s.item_ids.append(item.id)
    run.step({"type": "memory.create", "item": wire(item)}, "create_memory_item")


def _update(run: _Run, a: JSON) -> None:
    if (target := run.pick(run.live(), a["pick"])) is not None:
        partial = run.ids(a["partial"])
        run.step({"type": "memory.update", "item_id": target, "partial": partial, **_why(a)},
                 "apply_command")  # fmt: skip


def _retract(run: _Run, a: JSON) -> None:
    if (target := run.pick(run.live(), a["pick"])) is not None:
        run.step({"type": "memory.retract", "item_id": target, **_why(a)}, "apply_command")


def _edge(run: _Run, a: JSON) -> None:
    if ends := run.live():
        fields = {k: v for k, v in a.items() if k not in ("a", "b")}
        made = memex.create_edge(from_=ends[a["a"] % len(ends)], to=ends[a["b"] % len(ends)],
                                 **fields)  # fmt: skip
        run.step({"type": "edge.create", "edge": wire(made)}, "create_edge")


def _edge_update(run: _Run, a: JSON) -> None:
    """``same``: author / source_kind repeated (memexd takes them unchanged only);
    ``ignored``: edge_id / from / to, which both ignore."""
    if (target := run.pick(list(run.s.mem.edges), a["pick"])) is None:
        return
    p = a["partial"]
    partial = {k: v for k, v in p.items() if k not in ("same", "ignored")}
    partial |= {k: getattr(run.s.mem.edges[target], k) for k in p.get("same", ())}
    partial |= dict.fromkeys(p.get("ignored", ()), "ignored")
    run.step({"type": "edge.update", "edge_id": target, "partial": partial, **_why(a)},
             "apply_command")  # fmt: skip


def _edge_retract(run: _Run, a: JSON) -> None:
    if (target := run.pick(list(run.s.mem.edges), a["pick"])) is not None:
        run.step({"type": "edge.retract", "edge_id": target, **_why(a)}, "apply_command")


def _pair(run: _Run, a: JSON) -> tuple[str, str] | None:
    ends = run.live()
    return (ends[a["a"] % len(ends)], ends[a["b"] % len(ends)]) if ends else None


def _mark(run: _Run, a: JSON) -> None:
    """``mark_contradiction`` or ``mark_alias`` (a == b: a self-contradiction,
    or no alias at all)."""
    if (pair := _pair(run, a)) is not None:
        mark = memex.mark_alias if a["alias"] else memex.mark_contradiction
        run.integrity(mark(run.s.mem, *pair, a["author"], a.get("meta")), mark.__name__, a)


def _resolve(run: _Run, a: JSON) -> None:
    """Mostly the ends of an active CONTRADICTS edge; else any pair (a no-op)."""
    marked = [(e.from_, e.to) for e in run.s.mem.edges.values()
              if e.kind == "CONTRADICTS" and e.active]  # fmt: skip
    pair = marked[a["a"] % len(marked)] if marked and not a["any"] else _pair(run, a)
    if pair is not None:
        winner, loser = pair[::-1] if a["swap"] else pair
        result = memex.resolve_contradiction(run.s.mem, winner, loser, a["author"],
                                             a.get("reason"))  # fmt: skip
        run.integrity(result, "resolve_contradiction", a)


def _cascade(run: _Run, a: JSON) -> None:
    """From any item the session named: a retracted or ghost root is a no-op."""
    root = run.s.item_ids[a["pick"] % len(run.s.item_ids)]
    result = memex.cascade_retract(run.s.mem, root, a["author"], a.get("reason"))
    run.integrity(result, "cascade_retract", a)


def _intent(run: _Run, a: JSON) -> None:
    intent = memex.create_intent(**run.ids(_fields(a), run.s.intent_ids))
    run.s.intent_ids.append(intent.id)
    run.step({"type": "intent.create", "intent": wire(intent)}, "create_intent")


def _task(run: _Run, a: JSON) -> None:
    task = wire(memex.create_task(**run.ids(_fields(a), run.s.task_ids)))
    if a["raw"]:  # raw MemEX JSON has no attempt unless given
        del task["attempt"]
    run.s.task_ids.append(task["id"])
    run.step({"type": "task.create", "task": task}, "create_task")


def _plan_update(run: _Run, a: JSON) -> None:
    kind = a["kind"]
    ids = run.s.intent_ids if kind == "intent" else run.s.task_ids
    if (target := run.pick(ids, a["pick"])) is not None:
        command = {"type": f"{kind}.update", f"{kind}_id": target,
                   "partial": run.ids(a["partial"], ids), **_why(a)}  # fmt: skip
        run.step(command, f"apply_{kind}_command")


def _move(run: _Run, a: JSON) -> None:
    """A lifecycle command, valid or not from the record's status."""
    kind = a["command"].split(".")[0]
    ids = run.s.intent_ids if kind == "intent" else run.s.task_ids
    if (target := run.pick(ids, a["pick"])) is not None:
        given = run.ids({k: a[k] for k in _MOVE_ARGS[a["command"]] if k in a})
        run.step({"type": a["command"], f"{kind}_id": target, **given}, f"apply_{kind}_command")


_MOVE_ARGS: dict[str, tuple[str, ...]] = {
    **{f"intent.{c}": ("author", "reason") for c in ("pause", "resume", "complete", "cancel")},
    "task.start": ("agent_id",),
    "task.complete": ("result", "output_memory_ids"),
    "task.fail": ("error", "retryable"),
    "task.cancel": ("reason",),
}
_OPS: dict[str, Callable[[_Run, JSON], None]] = {
    "item": _item, "update": _update, "retract": _retract, "edge": _edge,
    "edge_update": _edge_update, "edge_retract": _edge_retract, "mark": _mark,
    "resolve": _resolve, "cascade": _cascade, "intent": _intent, "task": _task,
    "plan_update": _plan_update, "move": _move,
}  # fmt: skip


# ---------------------------------------------------------------- strategies

names = st.sampled_from(["u", "user:laz", "agent:r", "système"]) | st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=6
)
reasons = st.sampled_from(["", "why", "a\tb\nc"]) | names
#: any float in [0, 1]: their full precision must come back
scores = st.sampled_from([0.0, 1.0, 0.5, 0.8]) | st.floats(0, 1)
picks = st.integers(0, 40)
_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=6)
_values = st.recursive(
    _scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=2)
    ),
    max_leaves=4,
)
_keys = st.sampled_from(["k", "a.b", "x", "agent_id"]) | st.text(max_size=4)
objects = st.dictionaries(_keys, _values, max_size=3)
edge_kinds = st.sampled_from(["SUPPORTS", "CONTRADICTS", "ALIAS", "SUPERSEDES"]) | st.from_regex(
    r"[A-Z][A-Z0-9_]{0,6}", fullmatch=True
).filter(lambda kind: kind not in ("PARENT", "AWAITS"))
_IDS = st.lists(picks, max_size=3)


def _op(name: str, required: JSON, optional: JSON | None = None) -> st.SearchStrategy[Op]:
    return st.fixed_dictionaries(required, optional=optional or {}).map(lambda a: Op(name, a))


def _some(fields: JSON, nullable: JSON | None = None) -> st.SearchStrategy[JSON]:
    """A partial: some of ``fields``, and of ``nullable``, each of which may be
    ``None`` (a clear)."""
    cleared = {k: st.none() | v for k, v in (nullable or {}).items()}
    return st.fixed_dictionaries({}, optional={**fields, **cleared})


_ITEM = {"scope": names, "kind": names, "content": objects, "author": names,
         "source_kind": names, "authority": scores}  # fmt: skip
_ITEM_OPT = {"conviction": scores, "importance": scores, "meta": objects, "parents": _IDS,
             "intent": picks, "task": picks}  # fmt: skip
_IGNORED = {"id": st.none() | names, "created_at": st.integers()}
_INTENT = {"label": names, "priority": scores, "owner": names}
_INTENT_OPT = {"description": names, "context": objects, "root_memory_ids": _IDS,
               "parent": picks, "meta": objects}  # fmt: skip
_TASK = {"intent": picks, "action": names, "priority": scores}
_TASK_OPT = {"parent": picks, "label": names, "context": objects, "result": objects,
             "error": names, "input_memory_ids": _IDS, "output_memory_ids": _IDS,
             "agent_id": names, "meta": objects}  # fmt: skip
_STATUS = {"intent": ["active", "paused", "completed", "cancelled"],
           "task": ["pending", "running", "completed", "failed", "cancelled"]}  # fmt: skip
_WHY = {"author": names}
_REASON = {"reason": reasons}
_TICK = {"tick": st.sampled_from([0, 1, 7])}  # ms: 0 mints ids in the same ms
_ITEM_OP = _op("item", {**_TICK, **_ITEM}, _ITEM_OPT)
#: (weight, operation)
_WEIGHTED: list[tuple[int, st.SearchStrategy[Op]]] = [
    (3, _ITEM_OP),
    (2, _op("update", {"pick": picks, "partial": _some({**_ITEM, **_ITEM_OPT, **_IGNORED}),
                       **_WHY}, {**_REASON, "basis": objects})),
    (1, _op("retract", {"pick": picks, **_WHY}, _REASON)),
    (2, _op("edge", {"a": picks, "b": picks, "kind": edge_kinds, "author": names,
                     "source_kind": names, "authority": scores, "active": st.booleans()},
            {"weight": scores, "meta": objects})),
    (1, _op("edge_update", {"pick": picks, **_WHY, "partial": _some({
        "kind": edge_kinds, "weight": scores, "authority": scores, "active": st.booleans(),
        "meta": objects, "same": st.sets(st.sampled_from(["author", "source_kind"])),
        "ignored": st.sets(st.sampled_from(["edge_id", "from", "to"]))})}, _REASON)),
    (1, _op("edge_retract", {"pick": picks, **_WHY}, _REASON)),
    (4, _op("mark", {"a": picks, "b": picks, "alias": st.booleans(), **_WHY},
            {"meta": objects})),
    (3, _op("resolve", {"a": picks, "b": picks, "swap": st.booleans(),
                        "any": st.sampled_from([False, False, True]), **_WHY}, _REASON)),
    (1, _op("cascade", {"pick": picks, **_WHY}, _REASON)),
    (2, _op("intent", {**_TICK, **_INTENT},
            {**_INTENT_OPT, "status": st.sampled_from(_STATUS["intent"])})),
    (2, _op("task", {**_TICK, **_TASK, "raw": st.booleans()},
            {**_TASK_OPT, "status": st.sampled_from(_STATUS["task"])})),
    (1, _op("plan_update", {"kind": st.just("intent"), "pick": picks, **_WHY, "partial":
        _some({**_INTENT, "status": st.just("completed")}, _INTENT_OPT)},
        _REASON)),
    (1, _op("plan_update", {"kind": st.just("task"), "pick": picks, **_WHY, "partial":
        _some(_TASK, {**_TASK_OPT, "attempt": st.integers(0, 5)})})),
    (4, _op("move", {"pick": picks, "command": st.sampled_from(sorted(_MOVE_ARGS)),
                     "author": names, "error": names},  # task.fail requires it
            {**_REASON, "agent_id": names, "result": objects, "output_memory_ids": _IDS,
             "retryable": st.booleans()})),
]  # fmt: skip


def sessions(max_ops: int = 30) -> st.SearchStrategy[Plan]:
    """Plans of 3 to ``max_ops`` operations: 1-4 items first (most operations
    need some), then any, by weight; half of them long."""
    first = st.lists(_ITEM_OP, min_size=1, max_size=4)
    anything = st.one_of([op for weight, op in _WEIGHTED for _ in range(weight)])
    most = max_ops - 4  # short sessions shrink best; long ones find more
    then = st.lists(anything, min_size=2, max_size=most) | st.lists(anything, min_size=most // 2,
                                                                   max_size=most)  # fmt: skip
    ops = st.tuples(first, then).map(lambda two: (*two[0], *two[1]))
    start = st.integers(1_600_000_000_000, 1_900_000_000_000)
    return st.builds(Plan, st.integers(0, 2**32), start, ops)

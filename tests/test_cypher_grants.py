"""Every statement that touches items or events carries the caller's grants.

A structural guard for features to come: a new query file that matches
``(:Item)`` or ``(:Event)`` must declare ``readable`` or ``writable`` (which
the graph fills with the caller's prefixes) and apply the grant to every item
variable it binds, or be listed here with the reason it need not.
"""

from __future__ import annotations

import re

import pytest

from memexd.access.grants import Access, parse_grant
from memexd.graph.cypher import Queries, _source, query_names
from tests.support import Api

#: Statements run by memexd itself, never for a caller.
INTERNAL = {"admin_snapshot_nodes", "admin_snapshot_rels", "admin_wipe", "admin_reset",
            # log retention, the operator's command (memexd compact-log)
            "log_compact", "log_compact_scan",
            # embedding items after they are written (the server's loop and
            # memexd embed): derived data, no caller's question
            "embedding_pending", "embedding_clear", "embedding_set", "embedding_mark_all",
            # schema statements (n names the indexed label, no item)
            "vector_index_create", "vector_index_drop",
            # a job's progress: how many items its scan passes (never returned)
            "job_scan_start",
            # the time of the log's first entry, whoever's: the earliest
            # instant an as-of read takes (no item or event is returned)
            "log_first",
            # ids of items changed after an instant, taken back to it by
            # item_as_of, which applies the grants (never returned as they are)
            "item_changed_since",
            # the same for the ids in a window of id keys, and how many items
            # windows hold (sizing the as-of walk's windows; never returned)
            "item_ids_in_keys", "item_key_ladder"}  # fmt: skip
#: Item variables bound without a grant, and why that reveals nothing.
UNGUARDED = {
    # the same two items as x and y, which are checked, found again by id
    "alias_mark": {"f", "t"},
    # the children of an id are the readable items naming it, whoever owns it
    "item_children": {"p"},
    # ids are global (dup); c and n are the items being created; a parent the
    # caller cannot read is linked as it would be as a ghost parent (p); i, t:
    # the intent and task an item
    # names are linked whoever may read them (links mirror ids; nothing of
    # them is returned); working memory's guard (old, held) checks items of
    # the batch's own scopes, as planned under the write grant
    "item_create": {"c", "dup", "fenced", "n", "p", "i", "t", "old", "held", "log_e"},
    "item_update": {"fenced", "p", "i", "t"},
    # ids are global (dup); n is the item being created (its scope is
    # checked), log_e the event; the sources are checked writable; an
    # earlier promotion of one is counted, whoever may read it
    "item_promote": {"dup", "earlier", "log_e", "n"},
    # ids are global (dup); n is the record being created (its scope is
    # checked); i, t, m are records it links to or that name it
    "plan_create": {"dup", "i", "m", "n", "t"},
    # the same two items as w and l, which are checked
    "contradiction_pair": {"a", "b"},
    # the far end of an edge that goes with a retracted item, whoever owns it
    "item_retract_plan": {"o"},
    # the events the consolidation writes (its items are checked writable)
    "job_consolidate": {"log_e"},
    # a purged item's own events (h), and the children that named it (c),
    # whoever owns them: they only get a placeholder link, nothing is returned
    "job_purge": {"c", "h"},
    # an item's history: of its events (e) only the last one's record and
    # the last shelving's type are returned, and with the node (n) they are
    # seen under the grant on the scope the item had then (seen)
    "item_as_of": {"e"},
    # the trace's own items (trace_did checked them readable), and a child's
    # creation event, read for its trace only
    "trace_later": {"x", "born"},
    # the trace's own items' events, only counted: the record returned (p) is
    # the caller's to read, or the undo is refused
    "item_record_before": {"e"},
    # an undo's retracted items' live children, only counted, whoever owns
    # them: any child another command made since stops the write
    "bulk_apply": {"kid"},
}
_BINDS = re.compile(r"\((\w+):(?:/\*<label>\*/)?(?:Item|Event|Intent|Task)\b")
_GRANTED = re.compile(r"@(?:readable|writable|readable_event)\((\w+)\)")


def statements() -> list[str]:
    return [n for n in query_names() if "/" not in n and n not in INTERNAL]


def test_statements_touching_items_declare_grants() -> None:
    queries = Queries("falkordb")
    touching = [n for n in statements() if _BINDS.search(_source("falkordb", n))]
    assert len(touching) > 20  # the check sees the statements
    for name in touching:
        assert queries.get(name).grants, f"{name} carries no grant"


def test_every_bound_item_is_granted() -> None:
    for name in statements():
        source = _source("falkordb", name)
        bound = set(_BINDS.findall(source))
        granted = set(_GRANTED.findall(source))
        assert bound - granted == UNGUARDED.get(name, set()), name


async def test_callers_cannot_pass_grants(api: Api) -> None:
    graph = api.graph.bound(Access.of("reader", [parse_grant("read:tenant:a/")]))
    with pytest.raises(KeyError, match="not the caller's"):
        await graph.read("item_get", {"ids": [], "include_retracted": False, "readable": [""]})

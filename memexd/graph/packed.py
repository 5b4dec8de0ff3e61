"""A read's rows sent as one record, for Neo4j's Python driver.

The driver reads every row of an answer as a Bolt message of its own and
pays for each in Python (its chunks read, a record built, a dict made): 10,000
item rows took 0.75-0.88 s to read of which the engine spent 0.19 s. The same
rows collected into one list by the engine travel as one message, which the
driver decodes in Rust: 0.46-0.54 s. So reads are sent packed:
``CALL { <query> } RETURN collect([<columns>])``, and unpacked here into the
rows the query gives.

A statement's columns are read from its last ``RETURN`` (:func:`returned`;
a test checks them against Neo4j's own for every statement), else learnt
from its first answer, which is sent as it is. They are kept by the statement's
name, which the graph puts on the text's first line (``// item_find``): a
statement's columns never depend on what fills its slots, so each new text
of it (another filter) is sent packed at once and Neo4j plans it once, not
twice (planning a recall's reads took 0.4-0.9 s on a cold server). A text
Neo4j will not take packed (a subquery must name every column it returns)
is remembered and always sent as it is. Both are kept for the most recent
names and texts only.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

from memexd.types import Row

__all__ = ["PACKED", "Packed", "Packer"]

#: The one column of a packed answer.
PACKED = "memexd_rows"
#: Texts whose columns (or refusal) are kept.
_KEPT = 2_048


@dataclass(frozen=True, slots=True)
class Packed:
    """A query sent packed: its text, and the columns to unpack it into."""

    text: str
    columns: tuple[str, ...]

    def unpack(self, rows: list[Row]) -> list[Row]:
        columns = self.columns
        return [dict(zip(columns, values, strict=True)) for values in rows[0][PACKED]]


class Packer:
    """What each recent query text is sent as (shared by one store's reads)."""

    def __init__(self) -> None:
        self._known: OrderedDict[str, Packed | None] = OrderedDict()
        #: columns by statement name (or by text, for a text without one)
        self._columns: OrderedDict[str, tuple[str, ...]] = OrderedDict()

    def packed(self, text: str) -> Packed | None:
        """``text`` packed, or None where it is sent as it is (its statement's
        columns not known yet, or the text refused)."""
        if text in self._known:
            self._known.move_to_end(text)
            return self._known[text]
        name = _statement(text)
        columns = self._columns.get(name)
        if columns is None:
            columns = returned(text)  # read once per statement, not per text
            if columns is None:
                return None
            self.learn(text, columns)
        names = ", ".join(_quoted(c) for c in columns)
        wrapped = f"CALL {{\n{text}\n}}\nRETURN collect([{names}]) AS {PACKED}"
        return self._keep(text, Packed(wrapped, columns))

    def learn(self, text: str, columns: tuple[str, ...]) -> None:
        """Its statement's columns, from an answer sent as it is."""
        self._columns[_statement(text)] = columns
        self._columns.move_to_end(_statement(text))
        if len(self._columns) > _KEPT:
            self._columns.popitem(last=False)

    def refuse(self, text: str) -> None:
        """Neo4j would not take it packed: send it as it is from now on."""
        self._keep(text, None)

    def _keep(self, text: str, how: Packed | None) -> Packed | None:
        self._known[text] = how
        if len(self._known) > _KEPT:
            self._known.popitem(last=False)
        return how


def _statement(text: str) -> str:
    """The statement's name from the text's first line (``// name``), else the text."""
    first, newline, _ = text.partition("\n")
    return first[3:] if newline and first.startswith("// ") else text


#: Where a RETURN clause ends, and the quoting a name may need.
_CLAUSE_END = re.compile(r"(?<![$.\w])(ORDER\s+BY|SKIP|LIMIT|UNION)\b", re.IGNORECASE)
_RETURN = re.compile(r"(?<![$.\w])RETURN\b", re.IGNORECASE)
_ALIAS = re.compile(r"\s+AS\s+(`[^`]+`|\w+)\s*$", re.IGNORECASE | re.DOTALL)


def returned(text: str) -> tuple[str, ...] | None:
    """The columns a query's last top-level ``RETURN`` names (an item's
    alias, or its text where it has none), or None where they cannot be read
    from it (``RETURN *``, no RETURN)."""
    masked, depth = _masked(text)
    ends = [m.end() for m in _RETURN.finditer(masked) if depth[m.start()] == 0]
    if not ends:
        return None
    start = ends[-1]
    end = next((m.start() for m in _CLAUSE_END.finditer(masked, start) if depth[m.start()] == 0),
               len(text))  # fmt: skip
    cuts = [i for i in range(start, end) if masked[i] == "," and depth[i] == 0]
    items = [_code(text, masked, a + 1, b) for a, b in zip([start - 1, *cuts], [*cuts, end],
                                                           strict=True)]  # fmt: skip
    items[0] = re.sub(r"^DISTINCT\b\s*", "", items[0], flags=re.IGNORECASE)
    names = tuple(_name(item) for item in items)
    return None if "*" in names else names


def _code(text: str, masked: str, start: int, end: int) -> str:
    """``text[start:end]`` without the spaces and comments around it."""
    part = masked[start:end]
    return text[start + len(part) - len(part.lstrip()) : start + len(part.rstrip())]


def _name(item: str) -> str:
    alias = _ALIAS.search(item)
    return item if alias is None else alias.group(1).strip("`")


def _masked(text: str) -> tuple[str, list[int]]:
    """``text`` with comments blanked and strings and names in backticks
    filled (neither holds a bracket, comma or keyword), and the bracket depth
    at each character."""
    out, depth, level, i = [], [], 0, 0
    while i < len(text):
        end = _skipped(text, i)
        if end > i:  # a comment is space; a string or a quoted name is code
            out.append((" " if text[i] == "/" else "_") * (end - i))
            depth.extend([level] * (end - i))
            i = end
            continue
        char = text[i]
        level -= char in ")]}"
        depth.append(level)
        level += char in "([{"
        out.append(char)
        i += 1
    return "".join(out), depth


def _skipped(text: str, i: int) -> int:
    """Past the string, quoted name or comment starting at ``i`` (``i`` if none)."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    quote = text[i]
    if quote not in "'\"`":
        return i
    j = i + 1
    while j < len(text) and text[j] != quote:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"

"""A read's rows sent as one record, for Neo4j's Python driver.

The driver reads every row of an answer as a Bolt message of its own and
pays for each in Python (its chunks read, a record built, a dict made): 10,000
item rows took 0.75-0.88 s to read of which the engine spent 0.19 s. The same
rows collected into one list by the engine travel as one message, which the
driver decodes in Rust: 0.46-0.54 s. So reads are sent packed:
``CALL { <query> } RETURN collect([<columns>])``, and unpacked here into the
rows the query gives.

A query's columns are learnt from its first answer (Neo4j names them in
every answer), which is sent as it is; a query Neo4j will not take packed (a
subquery must name every column it returns) is remembered and always sent
as it is. Both are kept for the most recent texts only.
"""

from __future__ import annotations

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

    def packed(self, text: str) -> Packed | None:
        """``text`` packed, or None where it is sent as it is (not known yet,
        or refused)."""
        packed = self._known.get(text)
        if packed is not None:
            self._known.move_to_end(text)
        return packed

    def learn(self, text: str, columns: tuple[str, ...]) -> None:
        """Its columns, from an answer sent as it is (a refused text stays so)."""
        if text in self._known:
            return
        names = ", ".join(_quoted(c) for c in columns)
        self._keep(text, Packed(f"CALL {{\n{text}\n}}\nRETURN collect([{names}]) AS {PACKED}",
                                columns))  # fmt: skip

    def refuse(self, text: str) -> None:
        """Neo4j would not take it packed: send it as it is from now on."""
        self._keep(text, None)

    def _keep(self, text: str, how: Packed | None) -> None:
        self._known[text] = how
        if len(self._known) > _KEPT:
            self._known.popitem(last=False)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"

"""Project indexing (seed 000): a project's documents as ``PROJECT`` items.

A Markdown document is split at its ATX headings (``#`` to ``######``;
never inside fenced code): each heading starts a section that runs to the
next heading, and the text before the first heading is a section titled by
the file's name. A section with no text under its heading is left out (a
heading whose only content is subsections). Each section is one item of
kind ``document``: content ``{"title": "<file> > <heading path>", "text":
<body>}`` (so its summary, and its context-block line, is the title), with
``source_path``, ``source_section`` (the heading path, ``/``-joined, with
`` (2)``, `` (3)``… for repeats), ``source_hash`` (SHA-256 of title and
body) and ``indexed_at`` in meta. Other text files are one section each.

Indexing again is idempotent by content hash: unchanged sections are
skipped, changed ones updated (their history is the log's
``memory.updated`` events), and sections gone from a file, or files gone
from an indexed directory, are retracted. A dry run reports the same
summary and writes nothing.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memexd.errors import BadUserInput
from memexd.events.vocabulary import Origin
from memexd.memory.filters import MemoryFilter
from memexd.memory.items import ItemCommands
from memexd.memory.model import Item, ItemPatch, NewItem
from memexd.memory.reads import ItemReads
from memexd.memory.validation import Limits, check_text

__all__ = ["KIND", "Document", "DocumentIndex", "IndexReport", "Section", "split"]

KIND = "document"
#: Indexed from a directory: Markdown files (other files are indexed when named).
MARKDOWN = frozenset({".md", ".markdown"})
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SEP = " > "


@dataclass(frozen=True, slots=True)
class Section:
    key: str
    title: str
    text: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(f"{self.title}\n{self.text}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Document:
    """A file to index: its path as the project names it, and its text."""

    path: str
    text: str
    markdown: bool = True


@dataclass(slots=True)
class IndexReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)
    dry_run: bool = False


def split(doc: Document) -> list[Section]:
    """The document's sections, in order."""
    name = doc.path.rsplit("/", 1)[-1]
    if not doc.markdown:
        return [Section(name, name, doc.text.strip())] if doc.text.strip() else []
    raw: list[tuple[list[str], list[str]]] = [([], [])]  # (heading path, body lines)
    stack: list[tuple[int, str]] = []
    fence: str | None = None
    for line in doc.text.splitlines():
        opened = _FENCE.match(line)
        if opened and (fence is None or opened.group(1).startswith(fence)):
            fence = None if fence else opened.group(1)[:3]
        heading = None if fence or opened else _HEADING.match(line)
        if heading is None:
            raw[-1][1].append(line)
            continue
        level, text = len(heading.group(1)), heading.group(2).strip() or "(untitled)"
        stack = [s for s in stack if s[0] < level] + [(level, text)]
        raw.append(([t for _, t in stack], []))
    return _named(name, raw)


def _named(name: str, raw: list[tuple[list[str], list[str]]]) -> list[Section]:
    seen: dict[str, int] = {}
    out = []
    for path, lines in raw:
        body = "\n".join(lines).strip()
        key = "/".join(path) or name
        seen[key] = seen.get(key, 0) + 1
        if not body:
            continue
        unique = key if seen[key] == 1 else f"{key} ({seen[key]})"
        out.append(Section(unique, _SEP.join([name, *path]), body))
    return out


class DocumentIndex:
    def __init__(self, items: ItemCommands, reads: ItemReads, limits: Limits) -> None:
        self.items, self.reads, self.limits = items, reads, limits

    async def index(
        self, docs: Sequence[Document], gone: Iterable[str], *, scope: Any, author: Any,
        dry_run: bool, origin: Origin,
    ) -> IndexReport:  # fmt: skip
        """Index ``docs`` into ``scope``; ``gone``: path prefixes (indexed
        directories) whose indexed files no longer exist are retracted."""
        scope, author = check_text(scope, "scope"), check_text(author, "author")
        self.items.graph.access.require_write(scope, field="scope")
        held = await self._held(scope)
        report, now = IndexReport(dry_run=dry_run), time.time_ns() // 1_000_000
        fresh: list[NewItem] = []
        changed: list[tuple[Item, Section]] = []
        named = {d.path for d in docs}
        for doc in docs:
            for s in split(doc):
                self._check_size(doc, s)
                item = held.pop((doc.path, s.key), None)
                if item is None:
                    fresh.append(_new(doc, s, scope, author, now))
                elif (item.meta or {}).get("source_hash") == s.digest:
                    report.skipped.append(item.id)
                else:
                    changed.append((item, s))
        doomed = [i for (path, _), i in held.items()
                  if path in named or any(path.startswith(g) for g in gone)]  # fmt: skip
        if dry_run:
            report.created = [f"{n.meta['source_path']}#{n.meta['source_section']}" for n in fresh]
            report.updated = [i.id for i, _ in changed]
            report.retracted = [i.id for i in doomed]
            return report
        await self._write(report, fresh, changed, doomed, author, now, origin)
        return report

    async def _write(
        self, report: IndexReport, fresh: list[NewItem], changed: list[tuple[Item, Section]],
        doomed: list[Item], author: str, now: int, origin: Origin,
    ) -> None:  # fmt: skip
        for start in range(0, len(fresh), self.limits.max_batch):
            made, _ = await self.items.create(fresh[start : start + self.limits.max_batch], origin)
            report.created += [i.id for i in made]
        for item, s in changed:
            patch = ItemPatch(content={"title": s.title, "text": s.text},
                              meta={"source_hash": s.digest, "indexed_at": now})  # fmt: skip
            await self.items.update(item.id, patch, author, "memexd index", None, origin)
            report.updated.append(item.id)
        for item in doomed:
            await self.items.retract(item.id, author, "gone from the indexed documents", origin)
            report.retracted.append(item.id)

    async def _held(self, scope: str) -> dict[tuple[str, str], Item]:
        """The live indexed sections in the scope, by (path, section)."""
        flt = MemoryFilter(scope=scope, kind=KIND, meta_has=["source_path", "source_section"])
        page, offset, held = self.limits.max_page, 0, {}
        while True:
            found = await self.reads.find(flt, limit=page, offset=offset)
            for item in found:
                meta = item.meta or {}
                held[(str(meta["source_path"]), str(meta["source_section"]))] = item
            if len(found) < page or offset + page > self.limits.max_offset:
                return held
            offset += page

    def _check_size(self, doc: Document, s: Section) -> None:
        cap = self.limits.max_content_bytes
        if len(s.text.encode()) + len(s.title.encode()) > cap - 64:
            raise BadUserInput(f"{doc.path}: section {s.key!r} is over the item content limit "
                               f"({cap:,} bytes)", field="path")  # fmt: skip


def _new(doc: Document, s: Section, scope: str, author: str, now: int) -> NewItem:
    meta = {"source_path": doc.path, "source_section": s.key, "source_hash": s.digest,
            "indexed_at": now}  # fmt: skip
    return NewItem(scope=scope, kind=KIND, content={"title": s.title, "text": s.text},
                   author=author, source_kind="document", authority=0.9, meta=meta,
                   lifecycle="PROJECT")  # fmt: skip

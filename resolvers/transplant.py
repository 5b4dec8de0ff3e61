"""Resolvers for transplant: ``exportSlice`` and ``importSlice`` (MemEX export JSON)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from memexd.schema.common import Info
from memexd.schema.transplant import ExportInput, ImportOptions, ImportReport
from strawberry.scalars import JSON

from memexd.transplant.export import Exporter
from memexd.transplant.slices import Importer
from memexd.transplant.slices import ImportOptions as ImportOptionsRecord

__all__ = ["export_slice", "import_slice"]


async def export_slice(
    info: Info,
    input: Annotated[ExportInput, strawberry.argument(description="Anchors and walks.")],
) -> JSON:
    return JSON(await Exporter(info.context.memex).slice(input.options()))


async def import_slice(
    info: Info,
    slice: Annotated[
        JSON,
        strawberry.argument(
            description="MemEX export JSON: memories, edges, intents, tasks "
            "(at most MEMEXD_TRAVERSAL_MAX_NODES records)."
        ),
    ],
    options: Annotated[
        ImportOptions | None, strawberry.argument(description="MemEX's import options.")
    ] = None,
) -> ImportReport:
    given = ImportOptionsRecord() if options is None else options.options()
    ctx = info.context
    return ImportReport.of(await Importer(ctx.memex).slice(slice, given, ctx.origin))

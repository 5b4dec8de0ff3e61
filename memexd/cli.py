"""The ``memexd`` command line: serve, migrate, export-schema."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from memexd import __version__
from memexd.settings import Settings, load_settings

__all__ = ["main"]


def _connection_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, help="embedded engine data (MEMEXD_DATA_DIR)")
    parser.add_argument("--graph-uri", help="falkor://, bolt:// or neo4j:// (MEMEXD_GRAPH_URI)")
    parser.add_argument("--graph-name", help="graph / database name (MEMEXD_GRAPH_NAME)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memexd", description=__doc__)
    parser.add_argument("--version", action="version", version=f"memexd {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the GraphQL service")
    serve.add_argument("--host", help="bind address (MEMEXD_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (MEMEXD_PORT, default 8700)")
    _connection_flags(serve)

    migrate = commands.add_parser("migrate", help="apply pending schema migrations")
    _connection_flags(migrate)

    export = commands.add_parser("export-schema", help="print the GraphQL SDL")
    export.add_argument("--output", type=Path, help="write to this file instead of stdout")
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    keys = ("host", "port", "data_dir", "graph_uri", "graph_name")
    return load_settings({k: getattr(args, k, None) for k in keys})


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler: dict[str, Any] = {"serve": _serve, "migrate": _migrate, "export-schema": _export}
    return int(handler[args.command](args))


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from memexd.server.app import create_app

    settings = _settings(args)
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=settings.access_log,
        lifespan="on",
    )
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from memexd.graph import Graph
    from memexd.graph.migrations import migrate
    from memexd.graph.open import open_store

    settings = _settings(args)

    async def run() -> int:
        store = await open_store(settings)
        try:
            applied = await migrate(Graph(store))
        finally:
            await store.close()
        for m in applied:
            print(f"applied {m.version:04d}_{m.name}")
        if not applied:
            print("no pending migrations")
        return 0

    return asyncio.run(run())


def _export(args: argparse.Namespace) -> int:
    from memexd.schema.build import sdl

    text = sdl()
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

"""The ``memexd`` command line: serve, migrate, keys, export-schema, export, import, replay.

export, import and replay move MemEX files in and out (``memexd.transplant.cli``).

Anything that stops a command from starting (a bad setting, the port in use, a
locked or unwritable data directory, a missing engine program, an unreachable
engine) is one line on stderr and exit status 2; a bad argument or input file
is one line and exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import gc
import logging
import socket
import sys
import time
from pathlib import Path
from typing import Any

from memexd import __version__
from memexd.access.gate import Gate
from memexd.errors import BadUserInput, StartupError
from memexd.settings import Settings, load_settings
from memexd.transplant import cli as transplant

__all__ = ["main"]

STARTUP_FAILED = 2
USAGE = 1
GC_THRESHOLDS = (20_000, 50, 100)


def _connection_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, help="embedded engine data (MEMEXD_DATA_DIR)")
    parser.add_argument("--graph-uri", help="falkor://, bolt:// or neo4j:// (MEMEXD_GRAPH_URI)")
    parser.add_argument("--graph-name", help="graph / database name (MEMEXD_GRAPH_NAME)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memexd", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"memexd {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the GraphQL service")
    serve.add_argument("--host", help="bind address (MEMEXD_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (MEMEXD_PORT, default 8700)")
    _connection_flags(serve)

    migrate = commands.add_parser("migrate", help="apply pending schema migrations")
    _connection_flags(migrate)

    keys = commands.add_parser("keys", help="create, list and revoke API keys")
    keys.add_argument("--data-dir", type=Path, help="holds keys.json (MEMEXD_DATA_DIR)")
    keys.add_argument("--keys-file", type=Path, help="the key file itself (MEMEXD_KEYS_FILE)")
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="print a new key (shown once)")
    create.add_argument("--name", required=True, help="who holds it (shown in logs)")
    create.add_argument("--grant", action="append", default=[], required=True,
                        help="right:scope-prefix, e.g. read:project:acme/ (repeat)")  # fmt: skip
    actions.add_parser("list", help="every key: id, name, grants, state (never secrets)")
    revoke = actions.add_parser("revoke", help="stop a key working, at once")
    revoke.add_argument("key", help="its name or id")

    compact = commands.add_parser(
        "compact-log", help="fold the history of items unchanged for N days (docs/events.md)"
    )
    compact.add_argument("--older-than-days", type=float, required=True, metavar="N",
                         help="fold items whose every event is older than N days")  # fmt: skip
    _connection_flags(compact)

    export = commands.add_parser("export-schema", help="print the GraphQL SDL")
    export.add_argument("--output", type=Path, help="write to this file instead of stdout")
    export.add_argument(
        "--subgraph", action="store_true", help="the Federation 2 subgraph's SDL instead"
    )

    _transplant_commands(commands)
    return parser


def _transplant_commands(commands: Any) -> None:
    """export, import, replay: run by ``memexd.transplant.cli``."""
    export = commands.add_parser("export", help="write MemEX export JSON (the graph or a slice)")
    export.add_argument("file", metavar="FILE", help="the JSON file to write ('-': stdout)")
    for name in ("memory", "intent", "task"):
        export.add_argument(f"--{name}-ids", nargs="+", action="extend", metavar="ID",
                            help=f"anchor {name} ids (none at all: the whole graph)")  # fmt: skip
    for name in ("parents", "children", "aliases", "related-tasks", "related-intents"):
        export.add_argument(f"--include-{name}", action="store_true")

    imp = commands.add_parser(
        "import", help="import MemEX export JSON or memory records (checked whole first)"
    )
    imp.add_argument(
        "file", metavar="FILE",
        help="a MemEX export JSON file, or memory records as NDJSON or a JSON array ('-': stdin)",
    )  # fmt: skip
    imp.add_argument(
        "--skip-existing", action=argparse.BooleanOptionalAction, default=True,
        help="leave records whose id exists (default); no: update them in place",
    )  # fmt: skip
    imp.add_argument("--shallow-compare", action="store_true",
                     help="with --skip-existing: a differing record is a conflict")  # fmt: skip
    imp.add_argument("--re-id", action="store_true",
                     help="with --shallow-compare: a differing record gets a new id")  # fmt: skip
    imp.add_argument("--scope", help="the scope of created intents and tasks")
    imp.add_argument("--report", metavar="FILE", help="write the import report there as JSON")

    replay = commands.add_parser(
        "replay", help="apply a MemEX command or envelope log, in order",
        description="Apply a MemEX log (JSON array or NDJSON). A malformed file is refused "
        "before anything is applied; once applying, each command is atomic and what is "
        "applied stays, also if the replay is stopped (engine fault, Ctrl-C).",
    )  # fmt: skip
    replay.add_argument("file", metavar="FILE", help="the log ('-': stdin)")
    kind = replay.add_mutually_exclusive_group()
    kind.add_argument("--envelopes", action="store_true", help="the log holds envelopes")
    kind.add_argument("--commands", action="store_true", help="the log holds commands")
    replay.add_argument("--failures", metavar="FILE",
                        help="failures as NDJSON (default: FILE.failures.ndjson)")  # fmt: skip
    for parser in (export, imp, replay):
        _connection_flags(parser)
        parser.add_argument("--progress", action="store_true", help="a progress bar on stderr "
                            "even when it is not a terminal")  # fmt: skip
        parser.add_argument("--quiet", action="store_true", help="no progress, no summary")


def _settings(args: argparse.Namespace) -> Settings:
    keys = ("host", "port", "data_dir", "graph_uri", "graph_name", "keys_file")
    return load_settings({k: getattr(args, k, None) for k in keys})


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler: dict[str, Any] = {
        "serve": _serve, "migrate": _migrate, "keys": _keys, "export-schema": _export,
        "compact-log": _compact_log,
    }  # fmt: skip
    try:
        if args.command in transplant.HANDLERS:
            return transplant.HANDLERS[args.command](args, _settings(args))
        return int(handler[args.command](args))
    except StartupError as exc:
        print(f"memexd: {exc.message}", file=sys.stderr)
        return STARTUP_FAILED
    except BadUserInput as exc:
        print(f"memexd: {exc.message}", file=sys.stderr)
        return USAGE


def _serve(args: argparse.Namespace) -> int:
    settings = _settings(args)
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )
    from uvicorn.loops.auto import auto_loop_factory

    listener = _bind(settings.host, settings.port)
    try:
        Gate(settings).check_start(listener.getsockname()[0])
        # uvloop where installed, as uvicorn.run would pick (about 15% of a request)
        with asyncio.Runner(loop_factory=auto_loop_factory()) as runner:
            runner.run(_run(settings, listener))
    finally:
        listener.close()
    return 0


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the engine starts (a busy port fails fast)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartupError(f"cannot listen on {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise StartupError(f"port {port} on {host} is already in use") from None
        raise StartupError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    listener.set_inheritable(False)
    return listener


async def _run(settings: Settings, listener: socket.socket) -> None:
    import uvicorn

    from memexd.graph import Graph
    from memexd.graph.open import open_migrated
    from memexd.memory.text import ensure_index
    from memexd.server import ingest
    from memexd.server.app import create_app
    from memexd.server.protocol import guarded_protocol

    store, _ = await open_migrated(settings)
    try:
        await ensure_index(Graph(store), settings.text_search)  # follows the setting
        app = create_app(settings, store=store)
        # The schema, modules and query texts live as long as the process:
        # keep them out of the collector's full passes, which big requests
        # (a 10,000-item walk) trigger several times.
        gc.freeze()
        # Collect young objects every 20,000 allocations (default 700) and
        # consider full passes 50x / 100x less often: a big request (a
        # 10,000-item walk) allocates hundreds of thousands of objects that
        # live until it answers, and each full pass walks every long-lived
        # object (cached documents among them): at the defaults they doubled
        # such a walk's time (bench/scale.py). Cycles are rare here.
        gc.set_threshold(*GC_THRESHOLDS)
        config = uvicorn.Config(
            app,
            log_level=settings.log_level,
            access_log=settings.access_log,
            lifespan="on",
            http=guarded_protocol(
                header_timeout=settings.header_timeout_s,
                body_timeout=settings.body_timeout_s,
                max_connections=settings.max_connections,
                streaming_paths=frozenset({ingest.PATH}),
            ),
            timeout_keep_alive=max(1, round(settings.keep_alive_s)),
            ws_max_size=settings.max_body_bytes,
        )
        await uvicorn.Server(config).serve(sockets=[listener])
    finally:
        await store.close()


def _migrate(args: argparse.Namespace) -> int:
    from memexd.graph.open import open_migrated

    settings = _settings(args)

    async def run() -> int:
        store, applied = await open_migrated(settings)
        await store.close()
        for m in applied:
            print(f"applied {m.version:04d}_{m.name}")
        if not applied:
            print("no pending migrations")
        return 0

    return asyncio.run(run())


def _compact_log(args: argparse.Namespace) -> int:
    from memexd.events.retention import DAY_MS, compact_log
    from memexd.graph import Graph
    from memexd.graph.open import open_migrated

    days = args.older_than_days
    if not 0 <= days <= 1_000_000:  # NaN too
        raise BadUserInput("--older-than-days must be a number of days from 0 to 1,000,000")
    before = time.time_ns() // 1_000_000 - int(days * DAY_MS)

    async def run() -> int:
        store, _ = await open_migrated(_settings(args))
        try:
            done = await compact_log(Graph(store), before)
        finally:
            await store.close()
        print(f"folded the history of {done.folded:,} of {done.seen:,} changed items")
        return 0

    return asyncio.run(run())


def _keys(args: argparse.Namespace) -> int:
    from memexd.access.keys import KeyStore

    store = KeyStore(_settings(args).keys_path)
    if args.action == "create":
        key, full = store.create(args.name, args.grant)
        print(full)
        print(f"created key {key.id} ({key.name}): {' '.join(key.grants)}; "
              "this is the only time it is shown", file=sys.stderr)  # fmt: skip
    elif args.action == "revoke":
        key = store.revoke(args.key)
        print(f"revoked key {key.id} ({key.name})")
    else:
        for key in store.records():
            state = "active" if key.active else "revoked"
            print(f"{key.id}  {key.name}  {state}  {' '.join(key.grants)}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from memexd.schema.build import sdl, subgraph_sdl

    text = subgraph_sdl() if args.subgraph else sdl()
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

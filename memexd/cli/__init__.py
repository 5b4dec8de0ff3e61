"""The ``memexd`` command line: serve, migrate, keys, embed, archive, context,
index, jobs, mcp, node, export-schema, export, import, replay.

export, import and replay move MemEX files in and out (``memexd.cli.transplant``);
embed embeds waiting items now (``memexd.cli.embed``); archive and context are
the lifecycle's (``memexd.cli.lifecycle``); index turns a project's documents
into items (``memexd.cli.index``); jobs runs and follows maintenance jobs
(``memexd.cli.jobs``); mcp serves agents over stdio (``memexd.cli.agents``);
node runs a node of a FalkorDB topology (``memexd.cli.node``).

Anything that stops a command from starting (a bad setting, the port in use, a
locked or unwritable data directory, a missing engine program, an unreachable
engine) is one line on stderr and exit status 2; a bad argument or input file
is one line and exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from memexd import __version__
from memexd.access.gate import Gate
from memexd.cli import agents, embed, index, jobs, lifecycle, node, transplant
from memexd.errors import BadUserInput, StartupError
from memexd.settings import Settings, load_settings

__all__ = ["main"]

STARTUP_FAILED = 2
USAGE = 1


def _connection_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, help="embedded engine data (MEMEXD_DATA_DIR)")
    parser.add_argument("--graph-uri", help="falkor://, redis+sentinel://, bolt:// or neo4j:// "
                        "(MEMEXD_GRAPH_URI)")  # fmt: skip
    parser.add_argument("--graph-name", help="graph / database name (MEMEXD_GRAPH_NAME)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memexd", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"memexd {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the GraphQL service")
    serve.add_argument("--host", help="bind address (MEMEXD_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (MEMEXD_PORT, default 8700)")
    serve.add_argument(
        "--workers", type=int, help="processes on the port (MEMEXD_WORKERS; default: one per core)"
    )
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

    _connection_flags(embed.add_parser(commands))
    for command in (lifecycle.add_parsers(commands) + index.add_parsers(commands)
                    + jobs.add_parsers(commands) + agents.add_parsers(commands)):  # fmt: skip
        _connection_flags(command)
    node.add_parsers(commands)  # an engine node: no memexd connection

    export = commands.add_parser("export-schema", help="print the GraphQL SDL")
    export.add_argument("--output", type=Path, help="write to this file instead of stdout")
    export.add_argument(
        "--subgraph", action="store_true", help="the Federation 2 subgraph's SDL instead"
    )

    _transplant_commands(commands)
    return parser


def _transplant_commands(commands: Any) -> None:
    """export, import, replay: run by ``memexd.cli.transplant``."""
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


#: The commands other modules run, by name.
HANDLED: tuple[Mapping[str, Callable[[argparse.Namespace, Settings], int]], ...] = (
    transplant.HANDLERS, lifecycle.HANDLERS, index.HANDLERS, jobs.HANDLERS, agents.HANDLERS,
)  # fmt: skip


def _settings(args: argparse.Namespace) -> Settings:
    keys = ("host", "port", "workers", "data_dir", "graph_uri", "graph_name", "keys_file")
    return load_settings({k: getattr(args, k, None) for k in keys})


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler: dict[str, Any] = {
        "serve": _serve, "migrate": _migrate, "keys": _keys, "export-schema": _export,
        "compact-log": _compact_log, "embed": lambda a: embed.run(a, _settings(a)),
        "node": node.run,  # an engine node: memexd's settings are not its own
    }  # fmt: skip
    try:
        for handlers in HANDLED:
            if args.command in handlers:
                return handlers[args.command](args, _settings(args))
        return int(handler[args.command](args))
    except StartupError as exc:
        print(f"memexd: {exc.message}", file=sys.stderr)
        return STARTUP_FAILED
    except BadUserInput as exc:
        print(f"memexd: {exc.message}", file=sys.stderr)
        return USAGE


def _serve(args: argparse.Namespace) -> int:
    from memexd.server import serve
    from memexd.server.workers import supervise

    settings = _settings(args)
    serve.configure_logging(settings)
    listener = serve.bind(settings.host, settings.port)
    try:
        Gate(settings).check_start(listener.getsockname()[0])
        many = settings.workers > 1
        serve.run(supervise(settings, listener) if many else serve.serve(settings, listener))
    finally:
        listener.close()
    return 0


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

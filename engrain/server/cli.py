"""The `engrain` command line: serve, ui, worker, jobs run, status, export, import, import-chats, redact, reindex,
connect, and Claude Code's hook (server/hooks.py) with its worker."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import anyio

from engrain import __version__, logs
from engrain.server import connect as connecting

if TYPE_CHECKING:  # the settings (pydantic) are imported where they are read: `engrain hook` starts without them
    from engrain.config import Settings

JOB_NAMES = ("digest", "expiry", "decay")
T = TypeVar("T")
SWITCH_INTERVAL = 0.001
STATUS_WAIT_EXTERNAL = 5.0  # s: how long `engrain status` waits for an external database to answer
STATUS_WAIT_EMBEDDED = 60.0  # s: … for the embedded one, which a first start creates (initdb: seconds)


def serve(args: argparse.Namespace, settings: Settings) -> int:
    if args.transport == "stdio" and sys.stdin.isatty():  # a person, not a client: say what stdio waits for
        print(
            "engrain serve: an MCP server on stdio, waiting for a client to speak to it (Ctrl-C stops).\n"
            "A client starts it itself: `engrain connect claude-desktop` (or claude-code, cursor, vscode) "
            "writes its entry; `engrain status` shows the home.",
            file=sys.stderr,
        )
    from engrain.server.state import AppState

    # Text reading and model calls run in worker threads; the event loop, which answers every other call,
    # gets the interpreter back sooner than Python's default lets it.
    sys.setswitchinterval(SWITCH_INTERVAL)

    app = AppState(settings)
    if args.transport == "stdio":
        from engrain.server.app import create_server
        from engrain.server.stdio import run_stdio

        anyio.run(run_stdio, create_server(app))
        _exit_now(0)
    from engrain.server.http import serve_http
    from engrain.server.tokens import TokenError

    try:
        serve_http(app, args.transport, args.host, args.port)
    except TokenError as exc:
        print(f"engrain: {exc}", file=sys.stderr)
        return 2
    return 0


def ui(args: argparse.Namespace, settings: Settings) -> int:
    from engrain.server.state import AppState
    from engrain.server.ui import serve_ui

    sys.setswitchinterval(SWITCH_INTERVAL)
    user = args.user or settings.user or _with_app(settings, _local_user_name)
    serve_ui(AppState(settings, role="page"), user, args.port, open_browser=not args.no_browser)
    return 0


async def _local_user_within(app: Any, named: str | None, wait: float) -> Any:
    """The local user as `status` reads it: from the home within `wait`, else (a database that does not answer,
    which the report then says) the name given or the default, with nothing to say about other users."""
    from engrain.config import os_user
    from engrain.errors import Unavailable
    from engrain.services.memories.local_user import choose

    with anyio.move_on_after(wait):
        try:
            return await app.local_users.resolve(named)
        except Unavailable:
            pass
    return choose(named or app.settings.user or None, os_user(), {})  # the same rule, knowing no memories


async def _local_user_name(app: Any) -> str:
    """The machine's one local user (services/memories/local_user.py), with its notice on stderr."""
    local = await app.local_users.resolve()
    if note := local.notice():
        print(f"engrain: {note}", file=sys.stderr)
    return local.name


def _with_app(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    """Run `work(app)` against the database, without the in-server job loop."""
    from engrain.server.state import AppState

    async def main() -> T:
        app = AppState(settings, role="command")
        app.start(scheduler_loop=False)
        try:
            return await work(app)
        finally:
            await app.close()

    return anyio.run(main)


def _print(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def jobs_run(args: argparse.Namespace, settings: Settings) -> int:
    async def work(app: Any) -> int:
        names = JOB_NAMES if args.job == "all" else (args.job,)
        results = await app.scheduler.run_many(names, dry_run=args.dry_run)
        _print([r.model_dump(mode="json") for r in results])
        return 1 if any(r.status == "failed" for r in results) else 0

    return _with_app(settings, work)


def worker(args: argparse.Namespace, settings: Settings) -> int:
    async def work(app: Any) -> int:
        logging.getLogger(__name__).info("worker: running jobs every %.0f s", settings.scheduler_interval)
        await app.scheduler.run_forever()
        return 0

    return _with_app(settings, work)


def status(args: argparse.Namespace, settings: Settings) -> int:
    """The home at a glance (`--json`: the whole report). Exit 1 when the database cannot be reached, so that a
    healthcheck sees it; no embedding model is loaded (the report says which one a server would load)."""
    from engrain.services.status.summary import summary

    # An external database gets a few seconds to answer; the embedded one may first have to be created.
    wait = STATUS_WAIT_EMBEDDED if settings.database_url is None else STATUS_WAIT_EXTERNAL

    async def work(app: Any) -> int:
        local = await _local_user_within(app, args.user, wait)
        source = {"named": "--user" if args.user else "ENGRAIN_USER", "default": "the default"}.get(
            local.source, "the OS user's name, as an older engrain stored it"
        )
        if args.json:
            print(f"engrain status: user {local.name!r} (from {source})", file=sys.stderr)
        report = await app.status.report(local.name, wait=wait)
        if note := local.notice():
            report["user_note"] = note
        if args.json:
            _print(report)
        else:
            print("\n".join(summary(report, source)))
        return 0 if report["database"]["ok"] else 1

    return _with_app(settings, work)


def export(args: argparse.Namespace, settings: Settings) -> int:
    from engrain.services.memories.portability import export_jsonl

    print(f"engrain export: {f'user {args.user!r}' if args.user else 'every user'}", file=sys.stderr)

    async def work(app: Any) -> int:
        count = await export_jsonl(
            app.database,
            sys.stdout,
            user=args.user,
            vectors=not args.no_vectors,
            progress=sys.stderr.isatty(),
            mode=settings.redact,
        )
        sys.stdout.flush()
        if sys.stderr.isatty():
            print(f"exported {count:,} rows", file=sys.stderr)
        return 0

    return _with_app(settings, work)


def import_(args: argparse.Namespace, settings: Settings) -> int:
    from engrain.errors import EngrainError
    from engrain.services.memories.portability import bounded_lines, import_jsonl

    async def work(app: Any) -> int:
        try:
            # Bytes: a line that is not UTF-8 is refused with its number, not with a traceback.
            with open(args.file, "rb") if args.file != "-" else sys.stdin.buffer as handle:
                stats = await import_jsonl(
                    app.database,
                    bounded_lines(handle),
                    progress=sys.stderr.isatty(),
                    mode=settings.redact,
                    dry_run=args.dry_run,
                )
        except (EngrainError, OSError) as exc:
            print(f"engrain import: {exc}", file=sys.stderr)
            return 1
        # Rows whose secrets were replaced lost the vectors made from them: make them again.
        if stats.get("redacted") and not args.dry_run:
            await app.embeddings.ready()
            stats["reembedded"] = {"memories": await app.reembedding.reembed_stale()}
        _print(stats)
        return 0

    return _with_app(settings, work)


def import_chats(args: argparse.Namespace, settings: Settings) -> int:
    """The chat history a user already has, as dated memories (services/memories/importing.py)."""
    from datetime import UTC, datetime
    from pathlib import Path

    from tqdm import tqdm

    from engrain.errors import EngrainError
    from engrain.reading import chats, inputs
    from engrain.services.memories.importing import ChatCount

    path = Path(args.path).expanduser()
    if not path.exists():
        _refuse(f"import-chats: {path}: no such file or folder")
    try:
        kind = chats.named(args.source) or chats.detect(path)
        if kind == "markdown" and path.is_dir():  # say what will be read before reading it
            notes = chats.notes_folder(path)
            print(notes.announced(), flush=True)
            found = list(chats.read_notes(notes))
        else:
            found = list(chats.read(path, kind))
    except (chats.ExportError, OSError) as exc:
        _refuse(f"import-chats: {exc}")
    since = inputs.when("--since", args.since, datetime.now(UTC), settings.tz) if args.since else None

    async def work(app: Any) -> int:
        user = args.user or await _local_user_name(app)
        bar = tqdm(total=len(found), unit="conversation", disable=not sys.stderr.isatty(), file=sys.stderr)

        read = kept = 0

        def step(count: ChatCount) -> None:
            nonlocal read, kept
            read, kept = read + count.messages, kept + count.kept
            bar.set_postfix_str(f"{read:,} messages read, {kept:,} memories kept", refresh=False)
            bar.update()

        try:
            report = await app.chat_import.run(
                user,
                found,
                app.clock(),
                since=since,
                dry_run=args.dry_run,
                queue=not args.rules_only,
                keep_replies=not args.no_replies,
                progress=step,
            )
        except EngrainError as exc:
            print(f"engrain import-chats: {exc}", file=sys.stderr)
            return 1
        finally:
            bar.close()
        verb = "would keep" if args.dry_run else "kept"
        print(
            f"{report.conversations:,} conversations"
            + (f" ({report.unchanged:,} imported before, unchanged)" if report.unchanged else "")
            + f", {report.messages:,} messages of the user read; {verb} {report.kept:,} memories"
            + (f", {report.duplicates:,} already known" if report.duplicates else "")
            + (f" and {report.replies:,} of the assistant's replies" if report.replies else "")
            + f" (user {user!r})"
        )
        if report.queued:
            print(
                f"{report.queued:,} pieces queued for a model to read and improve: the server's own model in the "
                "background, else the one you chat with, a piece each time it calls reflect (engrain status shows "
                "what waits)"
            )
        if args.dry_run:
            for chat in report.chats:
                print(f"  {chat.kept:4d} of {chat.messages:4d} messages  {chat.title}  [{chat.source}]")
            print("Examples:")
            for example in report.examples:
                print(f"  - {example}")
        return 0

    return _with_app(settings, work)


def redact(args: argparse.Namespace, settings: Settings) -> int:
    """Find the secrets in rows stored before they were redacted (or under a looser ENGRAIN_REDACT), and with
    --apply rewrite them (texts, history, vectors)."""
    from tqdm import tqdm

    async def work(app: Any) -> int:
        if args.apply:
            await app.embeddings.ready()
        with tqdm(disable=not sys.stderr.isatty(), unit=" memories", desc="redact") as bar:

            async def advance(n: int) -> None:
                bar.update(n)

            report = await app.stored_secrets.run(apply=args.apply, user_id=args.user, on_batch=advance)
        _print(report.model_dump())
        return 0

    return _with_app(settings, work)


def merge_users(args: argparse.Namespace, settings: Settings) -> int:
    """Join the memories one person got under two names (older defaults: the OS user and `me`)."""
    from engrain.errors import EngrainError

    async def work(app: Any) -> int:
        target = args.target or (await app.local_users.resolve()).name
        try:
            copied = await app.local_users.merge(args.source, target)
        except EngrainError as exc:
            print(f"engrain merge-users: {exc}", file=sys.stderr)
            return 1
        print(
            f"moved {copied['memories']:,} memories of {args.source!r} to {target!r} "
            f"({sum(copied.values()) - copied['memories']:,} other rows); {args.source!r} holds nothing now"
        )
        return 0

    return _with_app(settings, work)


def reindex(args: argparse.Namespace, settings: Settings) -> int:
    from tqdm import tqdm

    async def work(app: Any) -> int:
        model = await app.embeddings.ready()
        stale = await app.reembedding.count_stale()
        with tqdm(total=stale, disable=not sys.stderr.isatty(), unit=" memories", desc=f"reindex → {model.id}") as bar:

            async def advance(n: int) -> None:
                bar.update(n)

            done = await app.reembedding.reembed_stale(on_batch=advance)
        windowed = await app.reembedding.window_missing()
        _print({"embedder": model.id, "reembedded": done, "were_stale": stale, "windowed": windowed})
        return 0

    return _with_app(settings, work)


def connect(args: argparse.Namespace, settings: Settings) -> int:
    """The entry an MCP client needs to start this installation's server (server/connect.py): printed, or
    with --write merged into the client's config file; for Claude Code, with --write, its hooks too."""
    from engrain.server.hooks import hooks_config

    client = connecting.CLIENTS[args.client]
    try:
        env = connecting.environment(args.env, args.user)
        path = client.config_file(Path(args.project) if args.project else None)
    except connecting.ConnectError as exc:
        _refuse(f"connect: {exc}")
    _checked_settings({key.removeprefix("ENGRAIN_").lower(): value for key, value in env.items()})
    launcher = connecting.launcher()
    entry = client.entry(launcher, env)
    if not args.write:
        _print(client.document(entry))
        print(connecting.where(client, path, None if args.project else client.command(launcher, env)), file=sys.stderr)
        if client.name == "claude-code":
            settings_file = connecting.claude_code_settings(Path(args.project) if args.project else None)
            print(
                f"engrain connect: --write also adds engrain's hooks to {settings_file} (or install the plugin: "
                "claude-plugin/ in engrain's repository)",
                file=sys.stderr,
            )
        return 0
    try:
        written = [connecting.merge(path, client, entry)]
        if client.name == "claude-code":  # and the hooks that bring memory in without being asked (server/hooks.py)
            settings_file = connecting.claude_code_settings(Path(args.project) if args.project else None)
            hooks = hooks_config(connecting.hook_command(launcher, env))
            written.append(connecting.merge_hooks(settings_file, hooks))
    except (connecting.ConnectError, OSError) as exc:
        print(f"engrain connect: {exc}", file=sys.stderr)
        return 1
    print("\n".join(w.summary() for w in written))
    return 0


def hook_worker(args: argparse.Namespace, settings: Settings) -> int:
    """The process that answers Claude Code's hooks (server/hook_worker.py)."""
    from engrain.server.hook_worker import run_worker

    return run_worker(settings)


def _exit_now(code: int) -> NoReturn:
    """End a stdio server at once once its session is over and its database closed: release the embedded
    Postgres (the last user stops it), flush the logs, and skip the interpreter's teardown (model
    libraries' threads and hooks), which took seconds — longer than clients wait before they kill."""
    from engrain.storage.embedded import release_embedded

    release_embedded()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _stop_on_signal(signum: int, frame: Any) -> None:
    """SIGTERM is how clients, Docker and systemd stop a server; SIGINT is Ctrl-C. Either stops any
    engrain command at once and quietly: the embedded Postgres this process started or joined is
    released (the last user stops it), then the process exits with 128 + the signal's number, no
    traceback. (Over HTTP, uvicorn first shuts down gracefully, then re-raises the signal to this
    handler.) What was acknowledged is committed; open transactions are rolled back by Postgres, so
    nothing is half-written. A stdio server cannot wait for its reader thread, blocked on stdin,
    which is why this exits rather than unwinds."""
    from engrain.storage.embedded import release_embedded

    release_embedded()
    os._exit(128 + signum)


def _checked_settings(overrides: Mapping[str, Any] | None = None) -> Settings:
    """Every setting, checked before anything starts: a typo (an unknown time zone, a malformed URL, an
    embedder or LLM that is not understood) stops the command with one line naming the variable and
    what it accepts, instead of a server that starts and then fails every call. `overrides` (field:
    value) are settings checked as if set: those `engrain connect` writes into a client's entry."""
    from pydantic import ValidationError

    from engrain.config import Settings, describe_settings_error
    from engrain.providers.embeddings import parse_spec
    from engrain.providers.llm import parse_llm_spec

    try:
        settings = Settings(**(overrides or {}))
        parse_spec(settings.embedder)
        parse_llm_spec(settings.llm)
    except ValidationError as exc:
        _refuse(describe_settings_error(exc))
    except ValueError as exc:
        _refuse(str(exc))
    return settings


def _scrubber(settings: Settings) -> Callable[[str], str] | None:
    """What the log passes every record through: the redaction of secrets (none with ENGRAIN_REDACT=off)."""
    from engrain.reading.redaction import redact

    mode = settings.redact
    return None if mode == "off" else lambda text: redact(text, mode).text


def _refuse(line: str) -> NoReturn:
    print(f"engrain: {line}", file=sys.stderr)
    sys.exit(2)


def main(argv: list[str] | None = None) -> None:
    if (sys.argv[1:] if argv is None else argv) == ["hook"]:  # as the entry point does (server/entry.py)
        from engrain.server.hooks import main as hook

        hook()
    parser = argparse.ArgumentParser(prog="engrain", description="Long-term memory of the user for MCP clients.")
    parser.add_argument("--version", action="version", version=f"engrain {__version__}")
    logging_options = argparse.ArgumentParser(add_help=False)
    logging_options.add_argument("--log-json", action="store_true", help="log JSON lines to stderr")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_cmd = commands.add_parser("serve", help="run the MCP server", parents=[logging_options])
    serve_cmd.add_argument(
        "--transport",
        choices=["stdio", "http", "sse"],
        default="stdio",
        help="stdio (what Claude Desktop launches), http (streamable HTTP at /mcp) or sse",
    )
    serve_cmd.add_argument("--host", default="127.0.0.1", help="HTTP/SSE: address to bind (default loopback)")
    serve_cmd.add_argument("--port", type=int, default=8765, help="HTTP/SSE: port (default 8765)")
    serve_cmd.set_defaults(func=serve)
    ui_cmd = commands.add_parser(
        "ui", help="open a local page of what engrain knows about the user", parents=[logging_options]
    )
    ui_cmd.add_argument("--port", type=int, default=8766, help="port on 127.0.0.1 (default 8766)")
    ui_cmd.add_argument("--user", help="whose memories (default ENGRAIN_USER, else this machine's local user)")
    ui_cmd.add_argument("--no-browser", action="store_true", help="print the sign-in address; open no browser")
    ui_cmd.set_defaults(func=ui)
    commands.add_parser(
        "worker", help="run the scheduled jobs only (no MCP server)", parents=[logging_options]
    ).set_defaults(func=worker)
    jobs_cmd = commands.add_parser("jobs", help="scheduled jobs").add_subparsers(dest="jobs_command", required=True)
    run_cmd = jobs_cmd.add_parser("run", help="run jobs now and print their results as JSON")
    run_cmd.add_argument("job", nargs="?", default="all", choices=[*JOB_NAMES, "all"])
    run_cmd.add_argument("--dry-run", action="store_true", help="report what would change; change nothing")
    run_cmd.set_defaults(func=jobs_run)
    status_cmd = commands.add_parser(
        "status",
        help="database, one user's counts, embedder, LLM, jobs, what waits for a model; exit 1 when the database "
        "cannot be reached",
    )
    status_cmd.add_argument(
        "--user", help="whose counts (default ENGRAIN_USER, else this machine's local user: a stdio server's)"
    )
    status_cmd.add_argument("--json", action="store_true", help="print the whole report as JSON")
    status_cmd.set_defaults(func=status)
    export_cmd = commands.add_parser("export", help="write memories, links, traits, history as JSON lines to stdout")
    export_cmd.add_argument("--user", help="only this user (default: every user)")
    export_cmd.add_argument("--no-vectors", action="store_true", help="leave out embeddings (re-made by reindex)")
    export_cmd.set_defaults(func=export)
    import_cmd = commands.add_parser("import", help="add what an export file holds (idempotent)")
    import_cmd.add_argument("file", help="a file from `engrain export`, or - for stdin")
    import_cmd.add_argument(
        "--dry-run", action="store_true", help="check the file and count what would be added; write nothing"
    )
    import_cmd.set_defaults(func=import_)
    chats_cmd = commands.add_parser(
        "import-chats",
        help="bring in chat history: a ChatGPT or Claude export (.zip or conversations.json), Claude Code "
        "sessions (a project folder of .jsonl) or a folder of Markdown/text notes",
    )
    chats_cmd.add_argument("path", help="the export file or folder")
    chats_cmd.add_argument(
        "--from", dest="source", choices=["auto", "chatgpt", "claude", "claude-code", "markdown"], default="auto"
    )
    chats_cmd.add_argument("--user", help="whose memories (default ENGRAIN_USER, else this machine's local user)")
    chats_cmd.add_argument("--since", help="only messages from this date on (ISO or a phrase like 'last year')")
    chats_cmd.add_argument("--dry-run", action="store_true", help="print what would be kept; write nothing")
    chats_cmd.add_argument(
        "--rules-only",
        action="store_true",
        help="keep what the rules find and queue nothing for a model to read later",
    )
    chats_cmd.add_argument(
        "--no-replies",
        action="store_true",
        help="keep none of the assistant's replies, only the user's own words (a much faster import)",
    )
    chats_cmd.set_defaults(func=import_chats)
    redact_cmd = commands.add_parser(
        "redact", help="find secrets in stored rows (--dry-run, the default) or replace them (--apply)"
    )
    how = redact_cmd.add_mutually_exclusive_group()
    how.add_argument("--dry-run", action="store_true", help="report what would change; change nothing (default)")
    how.add_argument("--apply", action="store_true", help="rewrite the rows, their history and their vectors")
    redact_cmd.add_argument("--user", help="only this user (default: every user)")
    redact_cmd.set_defaults(func=redact)
    commands.add_parser(
        "reindex", help="re-embed every memory and long memory's windows the current embedder did not make (resumable)"
    ).set_defaults(func=reindex)
    merge_cmd = commands.add_parser(
        "merge-users",
        help="move every memory of one user name to another (one person with two memories on one machine)",
    )
    merge_cmd.add_argument("source", help="the user whose memories move (it holds nothing afterwards)")
    merge_cmd.add_argument("target", nargs="?", help="the user they join (default: this machine's local user)")
    merge_cmd.set_defaults(func=merge_users)
    connect_cmd = commands.add_parser(
        "connect", help="print the entry an MCP client needs to start this installation's server (--write: add it)"
    )
    connect_cmd.add_argument("client", choices=list(connecting.CLIENTS))
    connect_cmd.add_argument(
        "--write",
        action="store_true",
        help="merge it into the client's config file (a backup kept, no other server touched) and say which file",
    )
    connect_cmd.add_argument("--user", help="whose memories this client reads (default: this machine's one user)")
    connect_cmd.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="ENGRAIN_X=VALUE",
        help="a setting the server gets from the entry, e.g. ENGRAIN_HOME=/data/engrain (repeatable)",
    )
    connect_cmd.add_argument(
        "--project",
        metavar="DIR",
        help="the project's file instead of the user's: DIR/.mcp.json (claude-code), DIR/.cursor/mcp.json, "
        "DIR/.vscode/mcp.json",
    )
    connect_cmd.set_defaults(func=connect)
    commands.add_parser(
        "hook",
        help="what Claude Code runs for engrain's hooks: reads the hook's JSON on stdin, prints the context to add; "
        "always exits 0 (the plugin, or `engrain connect claude-code --write`, registers it)",
    )
    commands.add_parser(
        "hook-worker", help="the process that answers the hooks (the first hook starts it; it stops when idle)"
    ).set_defaults(func=hook_worker)
    args = parser.parse_args(argv)
    settings = _checked_settings()
    from engrain.server.hooks import LOG_FILE

    # The hook worker has no terminal: it logs where the hooks do (the home's logs/hooks.log).
    log_file = settings.home / LOG_FILE if args.command == "hook-worker" else None
    logs.configure(
        settings.log_level, as_json=getattr(args, "log_json", False), scrub=_scrubber(settings), path=log_file
    )
    from engrain.config import unknown_settings

    for line in unknown_settings(os.environ):
        logging.getLogger("engrain.config").warning(line)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stop_on_signal)
    sys.exit(args.func(args, settings))


if __name__ == "__main__":
    main()

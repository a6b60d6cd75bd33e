"""`gpu-pricing`: the command line.

Exit codes: 0 ok, 1 partial (some sources failed, others landed), 2 usage or input
error, 3 nothing landed. With --json, stdout carries exactly one JSON document.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Iterator, MutableMapping
from functools import cache
from typing import Annotated

from gpu_pricing.cli._bytecode import keep_in_environment

# before the imports below: where Python writes no bytecode, the command's modules are
# compiled once into its virtual environment rather than on every run (see _bytecode)
keep_in_environment()

import typer  # noqa: E402
import typer.core  # noqa: E402
import typer.main  # noqa: E402

from common.redact import RedactingStream, install_logging  # noqa: E402
from gpu_pricing.cli import _coerce, _common  # noqa: E402

# One registration style: each group module of this package defines its Typer app(s); this
# table names where each command of the root lives, in the order of `--help`: (module,
# app, None) for an app whose commands join the root, (module, app, name) for an app added
# as the group `name`. A command's module is imported when that command runs (or `--help`
# lists the commands), so a command starts with its own imports, not every command's.
COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "refresh": ("core", "app", None),
    "rates": ("core", "app", None),
    "history": ("core", "app", None),
    "check": ("ops", "app", None),
    "report": ("ops", "app", None),
    "serve": ("ops", "app", None),
    "server": ("ops", "app", None),
    "publish": ("publish", "app", None),
    "snapshot": ("core", "snapshot_app", "snapshot"),
    "raw": ("core", "raw_app", "raw"),
    "estimate": ("estimate", "estimate_app", "estimate"),
    "breakeven": ("breakeven", "breakeven_app", "breakeven"),
    "plan": ("plan", "plan_app", "plan"),
    "alerts": ("ops", "alerts_app", "alerts"),
}


@cache
def _built(module: str, attribute: str, group: str | None) -> dict:
    """The click commands one module's Typer app adds to the root, built as `add_typer`
    builds them."""
    holder = typer.Typer()
    sub = getattr(importlib.import_module(f"gpu_pricing.cli.{module}"), attribute)
    holder.add_typer(sub, name=group)
    return typer.main.get_group(holder).commands


_coerce.install()  # plain option values converted without loading pydantic


class _Commands(MutableMapping):
    """The root's commands by name, each built on first use (see COMMANDS)."""

    def __init__(self) -> None:
        self._added: dict = {}

    def __getitem__(self, name: str):
        if name in self._added:
            return self._added[name]
        if name not in COMMANDS:
            raise KeyError(name)
        return _built(*COMMANDS[name])[name]

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(COMMANDS), **self._added})

    def __len__(self) -> int:
        return len(COMMANDS.keys() | self._added.keys())

    def __setitem__(self, name: str, command) -> None:
        self._added[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError(f"the command {name!r} cannot be removed")


class _Root(typer.core.TyperGroup):
    """The root group: its commands load lazily; listing them only names them."""

    def __init__(self, **attrs) -> None:
        super().__init__(**attrs)
        self.commands = _Commands()

    def list_commands(self, ctx) -> list[str]:
        return list(self.commands)


app = typer.Typer(
    cls=_Root,
    add_completion=False,
    no_args_is_help=True,
    help=__doc__,
    pretty_exceptions_show_locals=False,  # locals hold API keys and webhook URLs
)


# The commands that run no connector: they read the warehouse (or start Prefect's server)
# and skip building the connectors, most of their start-up (an HTTP client and ~80
# modules). Every other command builds them all before its first line: each connector
# registers its credential variables with redaction (common.redact) and its provider names
# (common.providers) when it is built; a read command that is given a provider name builds
# them then (gpu_pricing.api.reads._provider).
READ_COMMANDS = frozenset(
    {"rates", "history", "estimate", "breakeven", "plan", "report", "check", "server"}
)


def _version() -> str:
    from importlib.metadata import version

    return version("gpu-pricing")


def _print_version(value: bool) -> None:
    if value:
        print(f"gpu-pricing {_version()}")
        raise typer.Exit(0)


@app.callback()
def _global(
    ctx: typer.Context,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an error, and Prefect's logs.")
    ] = False,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", is_eager=True, callback=_print_version
        ),
    ] = False,
) -> None:
    _common.DEBUG = debug
    if ctx.invoked_subcommand not in READ_COMMANDS:
        import connectors.registry  # noqa: F401 - builds every connector (see READ_COMMANDS)
    if debug:
        os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO"
        os.environ["GRPC_VERBOSITY"] = "INFO"  # gRPC core's own lines (Nebius), quiet otherwise
        logging.getLogger().setLevel(logging.INFO)


class _OneLine(logging.Formatter):
    def formatMessage(self, record: logging.LogRecord) -> str:
        return f"gpu-pricing: {record.levelname.lower()}: {record.getMessage()}"


def main() -> None:
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")
    # run logs at INFO reach the Prefect API (a served run's log); how much of them the
    # console shows is up to each command (refresh: none, serve: INFO, --debug: INFO)
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO")
    # no usage telemetry from a nightly job; it also races the ephemeral server's SQLite
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # every byte this process prints, and every log record it makes, is redacted
    sys.stdout, sys.stderr = RedactingStream(sys.stdout), RedactingStream(sys.stderr)
    # a library's warning (an alert delivery that failed, a provider that failed) is one
    # line like every other message of the command, not `WARNING:module:...`
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(_OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[console])
    install_logging()
    app()

"""`gpu-pricing`: the command line.

Exit codes: 0 ok, 1 partial (some sources failed, others landed), 2 usage or input
error, 3 nothing landed. With --json, stdout carries exactly one JSON document.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated

import typer

from common.redact import RedactingStream, install_logging
from gpu_pricing.cli import _common, breakeven, core, estimate, ops, plan, publish

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help=__doc__,
    pretty_exceptions_show_locals=False,  # locals hold API keys and webhook URLs
)

# One registration style: each group module defines its Typer app(s), added here (an
# unnamed app's commands join the root; the order is the order of `--help`).
app.add_typer(core.app)  # refresh, rates, history
app.add_typer(ops.app)  # report, serve
app.add_typer(publish.app)  # publish
app.add_typer(core.snapshot_app, name="snapshot")
app.add_typer(core.raw_app, name="raw")
app.add_typer(estimate.estimate_app, name="estimate")
app.add_typer(breakeven.breakeven_app, name="breakeven")
app.add_typer(plan.plan_app, name="plan")
app.add_typer(ops.alerts_app, name="alerts")


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

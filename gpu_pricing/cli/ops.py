"""Operations commands: `report`, `serve`, `server` and `check` (on `app`), `alerts check`
(on `alerts_app`). Each but `server` reads gpu-pricing.toml (`--config`, else
$GPU_PRICING_CONFIG, else ./gpu-pricing.toml, else defaults); a bad file is exit 2 before
anything else happens.
"""

from pathlib import Path
from typing import Annotated

import typer

from common.errors import InvalidInput
from gpu_pricing.cli import _common
from gpu_pricing.cli._common import ConfigOpt, JsonOpt, WarehouseOpt, open_readonly, run
from gpu_pricing.cli._output import emit_json, err, table

# what an error message or the docs tell a user to run, as it runs in a fresh clone
PREFECT_SERVER_COMMAND = "uv run gpu-pricing server"
LOCAL_PREFECT_API = "http://127.0.0.1:4200/api"

app = typer.Typer()
alerts_app = typer.Typer(no_args_is_help=True, help="Budgets and rate rules.")


@app.command("check")
def check(
    warehouse: WarehouseOpt = None,
    config: ConfigOpt = None,
    all_rows: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Check every row of every relation (the weekly full check), not only the "
            "rows the last refresh added to the time series.",
        ),
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Run the warehouse's checks (sql/tests and the schema files' data tests) on the
    published warehouse, read-only. Exit 3 when one fails."""

    def body() -> int:
        from services.config import load
        from warehouse import checks

        path = load(config).warehouse_path(warehouse)
        if not path.exists():
            raise InvalidInput(f"warehouse {path} does not exist: run `gpu-pricing refresh` first")
        results, loads = checks.check_published(path, full=all_rows)
        failed = [r for r in results if r.failures]
        if json_out:
            emit_json({
                "warehouse": str(path),
                "scope": "all rows" if all_rows else "the last refresh's loads",
                "loads": loads,
                "checks": len(results),
                "failed": {r.name: r.failures for r in failed},
            })  # fmt: skip
        else:
            scope = "every row" if all_rows else f"the time series on the last refresh's {len(loads)} load(s)"
            print(f"{len(results)} checks of {path} ({scope}): {len(failed)} failed")
        for r in failed:
            sample = r.sample.head(1).to_dicts()
            err(f"check {r.name} failed: {r.failures} row(s), e.g. {sample}")
        return 3 if failed else 0

    raise typer.Exit(run(body))


@alerts_app.command("check")
def alerts_check(
    config: ConfigOpt = None,
    warehouse: WarehouseOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Evaluate budgets and rate rules against current rates; notify on changes of state;
    record them in alert_events. Exit 1 when a notification could not be delivered."""

    def body() -> int:
        import logging

        import polars as pl

        from gpu_pricing.api import alerts as alerts_api
        from services import notify
        from services.config import load

        cfg = load(config)
        # each failed delivery is said once, below (the library also logs it, for
        # served runs); --debug keeps both
        quiet = logging.getLogger(notify.__name__)
        if not _common.DEBUG:
            quiet.setLevel(logging.ERROR)
        try:
            result = alerts_api.check(cfg, warehouse)
        finally:
            quiet.setLevel(logging.NOTSET)
        if json_out:
            emit_json(result.to_dict())
        else:
            rows = pl.DataFrame(
                [
                    {
                        "rule": e.rule,
                        "state": e.state or "NO DATA",
                        "value": e.value,
                        "threshold": e.threshold,
                    }
                    for e in result.evaluations
                ],
                schema={
                    "rule": pl.String,
                    "state": pl.String,
                    "value": pl.Float64,
                    "threshold": pl.Float64,
                },
            )
            print(table(rows, float_digits=2))
            print(f"\n{len(result.fired)} change(s) of state")
            for t in result.fired:
                print(f"  {t.state}: {t.message}")
            for d in result.deliveries:
                if d.delivered:  # failures: one line each on stderr, below
                    print(f"  -> {d.target}: delivered ({d.rule})")
        for d in result.failed_deliveries:
            err(f"alert {d.rule}: delivery to {d.target} failed: {d.error} (retried next run)")
        return 1 if result.failed_deliveries else 0

    raise typer.Exit(run(body))


@app.command()
def report(
    out: Annotated[Path, typer.Option("--out", help="HTML file to write.")] = Path("report.html"),
    gpu: Annotated[str, typer.Option(help="GPU for the price history and spot bands.")] = "H100",
    config: ConfigOpt = None,
    warehouse: WarehouseOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Write a self-contained HTML report with charts (opens without network)."""

    def body() -> None:
        from gpu_pricing import report as report_mod
        from services.config import load

        cfg = load(config)
        con = open_readonly(cfg.warehouse_path(warehouse))
        try:
            html, sections = report_mod.render(con, gpu=gpu.upper(), workload=cfg.plan)
        finally:
            con.close()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(html, encoding="utf-8")
        if json_out:
            emit_json({"report": str(out), "bytes": len(html.encode()), "sections": sections})
        else:
            empty = [name for name, has_data in sections.items() if not has_data]
            print(f"wrote {out} ({len(html.encode()) / 1e6:.1f} MB)")
            if empty:
                print(f"no data for: {', '.join(empty)}")

    run(body)


@app.command()
def serve(
    config: ConfigOpt = None,
    warehouse: WarehouseOpt = None,
    snapshot: Annotated[
        str | None,
        typer.Option(help="Refresh from this snapshot instead of the live APIs ('demo')."),
    ] = None,
    name: Annotated[str, typer.Option(help="Deployment name.")] = "nightly",
) -> None:
    """Register the nightly refresh deployment and serve it until interrupted.

    Cron and time zone come from the config's \\[schedule] table; one run at a time."""

    def body() -> None:
        from connectors.kit import snapshot as kit_snapshot
        from services.config import load

        cfg = load(config)  # before Prefect is even imported
        if snapshot is not None:
            kit_snapshot.resolve(snapshot)
        import os

        # served runs: their logs (and those of our own modules) go to the Prefect API
        # and to this console
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "INFO")
        os.environ.setdefault("PREFECT_LOGGING_EXTRA_LOGGERS", "flows,gpu_pricing,connectors,warehouse")
        os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")
        from flows.direct import prefect_api_unreachable, prefect_api_url
        from flows.refresh import serve_nightly

        url = prefect_api_url()
        if not url:
            # without a server, Prefect's temporary one cannot hold a schedule: serve
            # would idle forever ("Cannot schedule flows on an ephemeral server")
            raise InvalidInput(
                "serve needs a Prefect server to hold the schedule: start one with "
                f"`{PREFECT_SERVER_COMMAND}` and serve with "
                f"`PREFECT_API_URL={LOCAL_PREFECT_API} uv run gpu-pricing serve` "
                "(or `uv run prefect config set PREFECT_API_URL=...` once)"
            )
        problem = prefect_api_unreachable(url)
        if problem:
            raise InvalidInput(
                f"serve: no Prefect API answers at {url} ({problem}): start the server "
                f"with `{PREFECT_SERVER_COMMAND}`, or point PREFECT_API_URL at a running one"
            )
        stopped = serve_nightly(
            cfg, name=name, warehouse=cfg.warehouse_path(warehouse), snapshot=snapshot
        )
        if stopped.cleanup_error:
            err(
                f"serve stopped; could not pause {stopped.deployment} at {url} "
                f"({stopped.cleanup_error}): its scheduled runs may remain"
            )
        else:
            print(
                f"serve stopped: {stopped.deployment} paused, "
                f"{stopped.removed_runs} scheduled run(s) removed"
            )

    run(body)


@app.command()
def server(
    host: Annotated[
        str, typer.Option(envvar="PREFECT_SERVER_API_HOST", help="Address to listen on.")
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(envvar="PREFECT_SERVER_API_PORT", min=1, max=65535, help="Port to listen on."),
    ] = 4200,
) -> None:
    """Start the Prefect server that `serve` registers its schedule with (API and UI at
    http://HOST:PORT), in the foreground until Ctrl-C.

    It is Prefect's own server (`prefect server start`) with this project's settings (no
    usage telemetry); its database lives under $PREFECT_HOME (default ~/.prefect)."""

    def body() -> None:
        import os
        import sys

        api = f"http://{host}:{port}/api"
        print(
            f"starting a Prefect server at {api}; then, in another shell: "
            f"`PREFECT_API_URL={api} uv run gpu-pricing serve`",
            flush=True,
        )
        # the process becomes Prefect's server: Ctrl-C and SIGTERM reach it directly
        argv = ["prefect", "server", "start", "--host", host, "--port", str(port)]
        os.execv(sys.executable, [sys.executable, "-m", *argv])

    run(body)

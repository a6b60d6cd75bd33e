"""The core commands: `refresh`, `rates`, `history` (on `app`), `snapshot record|export`
(on `snapshot_app`) and `raw verify` (on `raw_app`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from common.errors import InvalidInput
from common.rows import Rows
from gpu_pricing.cli._common import (
    JsonOpt,
    WarehouseOpt,
    open_readonly,
    parse_providers,
    run,
    warehouse_path,
)
from gpu_pricing.cli._output import emit_json, err, left_out_line, print_wrapped, table
from warehouse import db, queries

app = typer.Typer()
snapshot_app = typer.Typer(no_args_is_help=True, help="Record or export raw API responses.")
raw_app = typer.Typer(no_args_is_help=True, help="Check the raw store beside the warehouse.")


@app.command()
def refresh(
    warehouse: WarehouseOpt = None,
    snapshot: Annotated[
        str | None,
        typer.Option(help="Replay a snapshot directory instead of the network ('demo' = bundled)."),
    ] = None,
    providers: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated connectors to run, e.g. aws,sheets (default: all; "
            "`sheets` reads the price sheets of several providers)."
        ),
    ] = None,
    regions: Annotated[
        str | None, typer.Option(help="Comma-separated regions to fetch (live only).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="gpu-pricing.toml (default: $GPU_PRICING_CONFIG, else ./gpu-pricing.toml)",
        ),
    ] = None,
    accept_drop: Annotated[
        str | None,
        typer.Option(
            "--accept-drop",
            help="Comma-separated connectors whose fall in offers (beyond checks.max_drop_pct "
            "in gpu-pricing.toml) is real: publish their new offers this once.",
        ),
    ] = None,
    full_check: Annotated[
        bool | None,
        typer.Option(
            "--full-check/--no-full-check",
            help="Check every row of the warehouse, not only the rows this refresh adds "
            "(default: on the day of [schedule] full_check in gpu-pricing.toml, Sundays).",
            show_default=False,
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Refresh: fetch, land raw, normalise, publish, check alerts. Runs as a Prefect flow
    when a Prefect API is configured (PREFECT_API_URL), else directly (no server to start)."""

    def body() -> int:
        from connectors.kit import snapshot as kit_snapshot
        from services.config import load

        cfg = load(config)  # a bad config is exit 2 here, before Prefect starts
        path = cfg.warehouse_path(warehouse)
        names = parse_providers(providers)
        if snapshot is not None:
            kit_snapshot.resolve(snapshot)  # a bad path is a usage error, before Prefect starts
        db.check_openable(path)  # held read-write elsewhere, or not a DuckDB file: exit 2
        # Prefect's console logs off (a failure is one line here; its traceback with
        # --debug); run logs still reach the Prefect API
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "CRITICAL")
        from flows import direct, progress

        api = direct.prefect_api_url()
        if api and (problem := direct.prefect_api_unreachable(api)):
            err(
                f"warning: no Prefect API answers at {api} ({problem}); refreshing "
                "directly, without a Prefect run record"
            )
            api = None
        if api:
            from flows.refresh import refresh as run_refresh
        else:  # no Prefect API: the same refresh, without importing Prefect
            run_refresh = direct.refresh_direct
        reporter = progress.RichReporter() if sys.stderr.isatty() else progress.Reporter()
        with progress.reporting(reporter):
            summary = run_refresh(
                warehouse=str(path),
                snapshot=snapshot,
                providers=names,
                regions=[r.strip() for r in regions.split(",")] if regions else None,
                config=str(cfg.source) if cfg.source else None,
                accept_drop=parse_providers(accept_drop),
                full_check=full_check,
            )
        from gpu_pricing import api as engine  # `api` above is the Prefect API's URL

        con = db.connect_readonly(path)
        try:
            cheapest = queries.read_rows(con, "cheapest_summary")
            # what `rates --include-illustrative` would add, counted as `rates` counts it
            left_out = engine.read_left_out(con)
        finally:
            con.close()
        if json_out:
            emit_json(
                {**summary.to_dict(), "cheapest": cheapest.to_dicts(), "left_out": left_out}
            )
        else:
            from flows.direct import summary_markdown

            print(summary_markdown(summary))
            print("\nCheapest per-GPU-hour offers now (median: of each provider's cheapest):\n")
            shown = short_columns(cheapest)  # (a column without a value is left out)
            order = ["gpu", "gib", "pricing", "usd/gpu-h", "provider", "region",
                     "instance_type", "median", "providers"]  # fmt: skip
            shown = shown.select([c for c in order if c in shown.columns])
            print(table(shown, keep=("gpu", "pricing", "provider")))
            if left_out:
                print()
                print_wrapped(left_out_line(left_out))
        return summary.exit_code

    raise typer.Exit(run(body))




# the text tables' columns and their short headers (--json keeps every column, full names)
SHORT_COLUMNS = {
    "provider": "provider",
    "region": "region",
    "zone": "zone",
    "instance_type": "instance_type",
    "gpu_name": "gpu",
    "gpu_memory_gib": "gib",
    "gpu_count": "gpus",
    "pricing_model": "pricing",
    "price_usd_per_hour": "usd/h",
    "price_usd_per_gpu_hour": "usd/gpu-h",
    "pricing_detail": "detail",
    "valid_from": "valid_from",
    "valid_to": "valid_to",
    "observed_at": "observed_at",
    "note": "note",  # illustrative, GPU-only, spot above on-demand
    # refresh's cheapest table (mart_cheapest_gpu_hour)
    "median_provider_usd_per_gpu_hour": "median",
    "providers": "providers",
}


def short_columns(df):
    """The columns a text table shows, under short headers, so it fits 120 columns (a
    column with no value in any row is left out). `df`: a Polars frame or a
    `warehouse.db.Rows`."""
    shown = [c for c in SHORT_COLUMNS if c in df.columns and _has_value(df, c)]
    return df.select(shown).rename({c: SHORT_COLUMNS[c] for c in shown})


def _has_value(df, column: str) -> bool:
    if isinstance(df, Rows):
        return any(v is not None for v in df.column(column))
    return df[column].null_count() < df.height


@app.command()
def rates(
    warehouse: WarehouseOpt = None,
    gpu: Annotated[str | None, typer.Option(help="GPU name, e.g. H100")] = None,
    memory: Annotated[float | None, typer.Option(help="GPU memory in GiB, e.g. 80")] = None,
    pricing: Annotated[
        str | None,
        typer.Option(
            help="on_demand | spot | reserved_1y | reserved_3y | capacity_block | flex | "
            "savings_plan_1y | savings_plan_3y"
        ),
    ] = None,
    provider: Annotated[str | None, typer.Option(help="Provider, e.g. aws, azure, coreweave")] = None,
    region: Annotated[str | None, typer.Option(help="Region as the provider names it, e.g. eastus")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many rows")] = 50,
    include_illustrative: Annotated[
        bool,
        typer.Option(
            "--include-illustrative",
            help="also list illustrative or unverified prices (marked in `note`)",
        ),
    ] = False,
    include_gpu_only: Annotated[
        bool,
        typer.Option(
            "--include-gpu-only",
            help="also list accelerator-only prices whose host is billed apart (marked)",
        ),
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Current per-GPU-hour rates, cheapest first. Like `estimate`, only verified prices of
    whole machines by default; the --include-* flags add the others, marked in `note`."""

    def body() -> None:

        # the engine's rows as Python values: the table and the document need no Polars
        from gpu_pricing.api.reads import connect, read_left_out, read_rates_rows

        filters = {
            "memory": memory,
            "pricing": pricing,
            "provider": provider,
            "region": region,
            "include_gpu_only": include_gpu_only,
        }
        with connect(warehouse_path(warehouse)) as con:  # one connection, both reads
            df = read_rates_rows(
                con, gpu, limit=limit, include_illustrative=include_illustrative, **filters
            )
            # say what the default left out, by provenance
            left_out = {} if include_illustrative else read_left_out(con, gpu, **filters)
        if json_out:
            emit_json({"rates": df.to_dicts(), "count": df.height, "left_out": left_out})
        else:
            # the note says why a row is not ranked: cut it last
            print(table(short_columns(df), keep=("provider", "pricing", "note")))
            if left_out:
                print()
                print_wrapped(left_out_line(left_out))

    run(body)


@app.command()
def history(
    gpu: Annotated[str, typer.Option(help="GPU name, e.g. H100")],
    warehouse: WarehouseOpt = None,
    memory: Annotated[float | None, typer.Option(help="GPU memory in GiB, e.g. 80")] = None,
    pricing: Annotated[
        str | None,
        typer.Option(help="on_demand | spot (every spot price point) | reserved_1y | reserved_3y"),
    ] = None,
    provider: Annotated[str | None, typer.Option(help="Provider, e.g. aws, azure")] = None,
    since: Annotated[str | None, typer.Option(help="YYYY-MM-DD")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Effective-dated price history of a GPU (spot: every price point, per zone)."""

    def body() -> None:
        from datetime import date

        # the engine's rows as Python values: the table and the document need no Polars
        from gpu_pricing.api.reads import connect, read_history_rows

        try:
            since_d = date.fromisoformat(since) if since else None
        except ValueError:
            raise InvalidInput(f"--since {since!r}: expected YYYY-MM-DD") from None
        with connect(warehouse_path(warehouse)) as con:
            df = read_history_rows(
                con, gpu, memory=memory, pricing=pricing, provider=provider, since=since_d
            )
        if json_out:
            emit_json({"history": df.to_dicts(), "count": df.height})
        else:
            print(table(short_columns(df)))
            if df.is_empty() and pricing is not None and pricing.strip().lower() == "spot":
                print_wrapped(
                    "Spot points whose price is illustrative or unverified (the demo's "
                    "invented AWS spot history among them) are not points: docs/prices.md."
                )

    run(body)


@snapshot_app.command("record")
def snapshot_record(
    directory: Annotated[Path, typer.Argument(help="Where to write the snapshot.")],
    warehouse: WarehouseOpt = None,
    providers: Annotated[
        str | None,
        typer.Option(help="Comma-separated connectors to record, e.g. aws,sheets (default: all)."),
    ] = None,
    regions: Annotated[str | None, typer.Option(help="Comma-separated regions to fetch.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Call the live APIs and write what they return, untouched, as a snapshot.
    Incremental endpoints (AWS spot history) start from the warehouse's watermarks when
    the warehouse exists, as the nightly refresh would; else from their look-back window."""

    def body() -> int:
        from connectors import registry
        from connectors.kit import snapshot as kit_snapshot
        from connectors.kit.page import FetchContext, FetchFailure
        from warehouse.staging import watermarks_of

        names = parse_providers(providers) or list(registry.PROVIDERS)
        path = warehouse_path(warehouse)
        region_list = tuple(r.strip() for r in regions.split(",")) if regions else None
        marks = watermarks_of(path, names)
        report = {}
        for name in names:
            ctx = FetchContext(watermarks=marks[name], regions=region_list)
            pages, failures = [], []
            try:
                for item in registry.get(name).fetch_live(ctx):
                    (failures if isinstance(item, FetchFailure) else pages).append(item)
            except Exception as exc:
                # its pages so far are kept; the error is its one (redacted) failure line,
                # as a refresh counts it as that provider failing
                failures.append(FetchFailure(name, "*", "", exc))
            written = kit_snapshot.write_pages(directory, pages)
            # no credentials for an endpoint: skipped, said once, not a failure
            skipped = [f for f in failures if f.skipped]
            failed = [f for f in failures if f not in skipped]
            report[name] = {
                "pages": written,
                "failures": [f"{f.endpoint}/{f.scope}: {f.error}" for f in failed],
                "skipped": [f"{f.endpoint}/{f.scope}: {f.error}" for f in skipped],
            }
            for f in failures:
                err(
                    f"{name} {f.endpoint}/{f.scope or '*'}: {'skipped: ' if f in skipped else ''}{f.error}"
                )
        if json_out:
            emit_json({"snapshot": str(directory), "providers": report})
        else:
            for name, r in report.items():
                print(f"{name}: {r['pages']} page(s) written, {len(r['failures'])} failure(s)")
        landed = sum(r["pages"] for r in report.values())
        failed = any(r["failures"] for r in report.values())
        return 3 if not landed and failed else 1 if failed else 0

    raise typer.Exit(run(body))


@snapshot_app.command("export")
def snapshot_export(
    directory: Annotated[Path, typer.Argument(help="Where to write the snapshot.")],
    warehouse: WarehouseOpt = None,
    load_id: Annotated[
        str | None,
        typer.Option("--load-id", help="Only this load (a `_loads.load_id`; default: every load)"),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Write raw payloads already in the warehouse back out as a snapshot."""

    def body() -> None:
        from warehouse.snapshot_export import export_snapshot

        con = open_readonly(warehouse_path(warehouse))
        try:
            counts = export_snapshot(con, directory, load_id)
        finally:
            con.close()
        if load_id and not counts:
            raise InvalidInput(f"--load-id {load_id!r}: no such load with stored pages")
        if json_out:
            emit_json({"snapshot": str(directory), "pages": counts})
        else:
            for key, n in counts.items():
                print(f"{key}: {n} page(s)")

    run(body)


@raw_app.command("verify")
def raw_verify(warehouse: WarehouseOpt = None, json_out: JsonOpt = False) -> None:
    """Check every raw page the ledger names: its object exists, decompresses, and its
    request and bytes hash to its name. Exit 1 when any is damaged or missing (each named,
    with its provider and page), else 0."""

    def body() -> int:
        from warehouse import raw
        from warehouse.rawstore import REPAIR, RawStore

        path = warehouse_path(warehouse)
        con = open_readonly(path)
        try:
            result = raw.verify(con, RawStore.beside(path))
        finally:
            con.close()
        if json_out:
            emit_json(result)
        else:
            print(
                f"{result['store']}: {result['checked']} object(s) checked, "
                f"{len(result['damaged'])} damaged or missing, "
                f"{len(result['unreferenced'])} named by no load"
            )
        for line in result["damaged"]:
            err(line)
        if result["damaged"]:
            err(REPAIR)
        return 1 if result["damaged"] else 0

    raise typer.Exit(run(body))

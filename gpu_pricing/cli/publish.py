"""`gpu-pricing publish`: the warehouse as Iceberg tables, the DuckDB file and a manifest on
a local path or object storage (warehouse.publish)."""

from pathlib import Path
from typing import Annotated

import typer

from gpu_pricing.cli._common import ConfigOpt, JsonOpt, WarehouseOpt, run
from gpu_pricing.cli._output import emit_json, table

app = typer.Typer()


@app.command()
def publish(
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="Local path, s3://bucket/prefix, gs://bucket/prefix or az://container/prefix "
            "(default: publish.to in gpu-pricing.toml).",
        ),
    ] = None,
    namespace: Annotated[
        str | None, typer.Option(help="Iceberg namespace (default: gpu_pricing).")
    ] = None,
    no_duckdb: Annotated[
        bool, typer.Option("--no-duckdb", help="Do not upload the DuckDB file.")
    ] = False,
    config: ConfigOpt = None,
    warehouse: WarehouseOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Publish the analyst-facing relations as Apache Iceberg tables (one snapshot per
    table per publish), the DuckDB file and a manifest.json."""

    def body() -> None:
        import polars as pl

        from common.errors import InvalidInput
        from services.config import load
        from warehouse import publish as pub

        cfg = load(config)
        target = to or cfg.publish.to
        if not target:
            raise InvalidInput(
                "publish: --to is required (or set [publish] to in gpu-pricing.toml)"
            )
        result = pub.publish(
            Path(cfg.warehouse_path(warehouse)),
            target,
            namespace=namespace or cfg.publish.namespace,
            catalog=pub.resolve_properties(cfg.publish.catalog, "publish.catalog"),
            properties=pub.resolve_properties(cfg.publish.properties, "publish.properties"),
            include_duckdb=cfg.publish.duckdb and not no_duckdb,
        )
        if json_out:
            emit_json(result.to_dict())
            return
        rows = pl.DataFrame(
            [
                {
                    "table": f"{result.namespace}.{t.name}",
                    "mode": t.mode,
                    "rows": t.rows,
                    "written": t.rows_written,
                    "snapshot_id": str(t.snapshot_id),
                    "new_columns": ", ".join(t.schema_added),
                }
                for t in result.tables
            ]
        )
        print(table(rows))
        print(f"\npublished {result.publish_id} (as of {result.as_of}) to {result.to}")
        if result.duckdb:
            print(f"DuckDB file: {result.duckdb['file']} ({result.duckdb['bytes'] / 1e6:.1f} MB)")
        print(f"manifest: {result.manifest}")

    run(body)

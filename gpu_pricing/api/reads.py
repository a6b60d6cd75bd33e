"""The engine's reads: the warehouse path and its read-only connection, offers, GPU specs
(from the warehouse or the bundled seed), rates, the cheapest summary and price history,
and the name helpers every question shares (a GPU or precision as typed)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import date
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from common import names
from common.errors import InvalidInput, WarehouseError
from common.gpu_seeds import SEED_GPU_SPECS
from common.rows import Rows
from warehouse import db, queries

if TYPE_CHECKING:
    import polars as pl


@cache
def _spec_schema() -> dict[str, type[pl.DataType]]:
    import polars as pl

    return {
        "gpu_name": pl.String,
        "gpu_memory_gib": pl.Float64,
        "vendor": pl.String,
        "fp32_tflops": pl.Float64,
        "tf32_tflops": pl.Float64,
        "bf16_tflops": pl.Float64,
        "fp8_tflops": pl.Float64,
        "memory_bandwidth_gbps": pl.Float64,
        "interconnect_gbps": pl.Float64,
        "tdp_watts": pl.Float64,
        "capex_usd": pl.Float64,
        "capex_as_of": pl.Date,
        "capex_source": pl.String,
        "spec_source": pl.String,
    }


def __getattr__(name: str) -> Any:
    """SPEC_SCHEMA: dim_gpus' columns in Polars' types, built when first read (a command
    that never reads specs starts without loading Polars)."""
    if name == "SPEC_SCHEMA":
        return _spec_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def warehouse_path(warehouse: str | Path | None = None) -> Path:
    """The warehouse file: the argument, else $GPU_PRICING_WAREHOUSE, else
    gpu-pricing.toml's `warehouse` (the file in the working directory or
    $GPU_PRICING_CONFIG), else the project's warehouse/gpu_pricing.duckdb, whatever the
    working directory (`warehouse.db.project_path`)."""
    if warehouse:  # the file is not read: it could only name another warehouse
        return Path(warehouse)
    from services.config import load

    cfg = load()
    if cfg.warehouse is not None:
        return cfg.warehouse_path()
    return db.project_path()


@contextmanager
def connect(warehouse: str | Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the warehouse, closed on exit. Every function's
    `warehouse=` also takes an open connection (`with gpu_pricing.connect() as con:
    gpu_pricing.rates("H100", warehouse=con)`), used as it is and left open: many
    questions, one connection."""
    if isinstance(warehouse, duckdb.DuckDBPyConnection):
        yield warehouse
        return
    con = db.connect_readonly(warehouse_path(warehouse))
    try:
        yield con
    finally:
        con.close()


def _exists(warehouse: str | Path | duckdb.DuckDBPyConnection | None) -> bool:
    if isinstance(warehouse, duckdb.DuckDBPyConnection):
        return True
    return warehouse_path(warehouse).exists()


def _where(warehouse: str | Path | duckdb.DuckDBPyConnection | None) -> str:
    """The warehouse as an error message names it."""
    if isinstance(warehouse, duckdb.DuckDBPyConnection):
        return "the given connection"
    return f"warehouse {warehouse_path(warehouse)}"


def _query(warehouse: str | Path | None, name: str, params: dict | None = None) -> pl.DataFrame:
    """The rows of query `name` (warehouse/queries/<name>.sql) in the warehouse."""
    with connect(warehouse) as con:
        return queries.read(con, name, params)


def read_offers(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every usable current offer: the one place the planners read offers from."""
    return queries.read(con, "offers_usable")


def offers(warehouse: str | Path | None = None) -> pl.DataFrame:
    """Every usable current offer, with spot offers' published preemption rates."""
    with connect(warehouse) as con:
        return read_offers(con)


def seed_gpu_specs() -> pl.DataFrame:
    """dim_gpus as bundled (sql/seeds/seed_gpu_specs.csv): GPU specs with no warehouse."""
    import polars as pl

    schema = _spec_schema()
    with SEED_GPU_SPECS.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    raw = pl.DataFrame(rows, schema=dict.fromkeys(schema, pl.String))
    blank_as_null = {name: pl.col(name).replace("", None) for name in schema}
    return raw.select(
        blank_as_null[name].str.to_date("%Y-%m-%d").alias(name)
        if dtype == pl.Date
        else blank_as_null[name].cast(dtype, strict=True)
        for name, dtype in schema.items()
    )


def read_gpu_specs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """dim_gpus."""
    return queries.read(con, "gpu_specs")


def read_variant_specs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """dim_gpu_variants: the specs of each form factor, keyed by gpu_variant as offers are."""
    return queries.read(con, "gpu_variant_peaks")


def _specs(warehouse: str | Path | None, read) -> pl.DataFrame:
    """`read(con)` on the warehouse; the bundled seed when the warehouse does not exist."""
    if not _exists(warehouse):
        return seed_gpu_specs()
    with connect(warehouse) as con:
        return read(con)


def offer_specs(warehouse: str | Path | None = None) -> pl.DataFrame:
    """The specs offers are costed at: per form factor from the warehouse (an H100 PCIe
    offer at the PCIe peak), the bundled seed (one form factor per GPU) without one."""
    return _specs(warehouse, read_variant_specs)


def gpu_specs(warehouse: str | Path | None = None) -> pl.DataFrame:
    """dim_gpus from the warehouse; the bundled seed when the warehouse does not exist."""
    return _specs(warehouse, read_gpu_specs)


def _rates_params(
    con: duckdb.DuckDBPyConnection,
    gpu: str | names.Gpu | None,
    *,
    memory: float | None,
    pricing: str | None,
    provider: str | None,
    region: str | None,
    limit: int | None,
    include_illustrative: bool,
    include_gpu_only: bool,
) -> dict:
    """rates.sql's parameters: names parsed here, checked against the warehouse."""
    choice = _gpu(gpu, memory) if gpu else None
    if limit is not None and limit < 1:
        raise InvalidInput(f"--limit {limit}: must be >= 1")
    params = {
        "gpu": choice.name if choice else None,
        "variant": choice.variant if choice else None,
        "memory": choice.memory_gib if choice else memory,
        "pricing": names.pricing_model(pricing) if pricing else None,
        "provider": _provider(provider, extra=read_providers(con)) if provider else None,
        "limit": limit,
        "include_illustrative": include_illustrative,
        "include_gpu_only": include_gpu_only,
    }
    params["region"] = (
        names.region(region, read_regions(con, params["provider"])) if region else None
    )
    return params


# rates.sql's column for left_out.sql to count, not a column of the answer
_RATES_HIDDEN = ("listed_by_default",)


def read_rates(
    con: duckdb.DuckDBPyConnection,
    gpu: str | None = None,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    limit: int | None = None,
    include_illustrative: bool = False,
    include_gpu_only: bool = False,
) -> pl.DataFrame:
    """`rates` on an open connection (names parsed here, checked against the warehouse)."""
    return _rates(
        con, queries.read, gpu, memory=memory, pricing=pricing, provider=provider,
        region=region, limit=limit, include_illustrative=include_illustrative,
        include_gpu_only=include_gpu_only,
    )  # fmt: skip


def read_rates_rows(
    con: duckdb.DuckDBPyConnection,
    gpu: str | None = None,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    limit: int | None = None,
    include_illustrative: bool = False,
    include_gpu_only: bool = False,
) -> Rows:
    """`read_rates`' rows as Python values (what `gpu-pricing rates` prints), without
    loading Polars."""
    return _rates(
        con, queries.read_rows, gpu, memory=memory, pricing=pricing, provider=provider,
        region=region, limit=limit, include_illustrative=include_illustrative,
        include_gpu_only=include_gpu_only,
    )  # fmt: skip


def _rates(con, read, gpu, **options):
    """rates.sql's answer read by `read` (queries.read or read_rows), without the column
    left_out.sql counts by."""
    return read(con, "rates", _rates_params(con, gpu, **options), exclude=_RATES_HIDDEN)


def read_left_out(
    con: duckdb.DuckDBPyConnection,
    gpu: str | names.Gpu | None = None,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    include_gpu_only: bool = False,
) -> dict[str, int]:
    """The current prices a default answer for these filters leaves out, counted by
    provenance (illustrative, unverified: int_provenances' is_verified false): what
    `include_illustrative` would add to `rates`. Empty when nothing is left out. One pass
    in DuckDB over the stored mart (left_out.sql, which reads rates.sql's rows)."""
    params = _rates_params(
        con, gpu, memory=memory, pricing=pricing, provider=provider, region=region,
        limit=None, include_illustrative=True, include_gpu_only=include_gpu_only,
    )  # fmt: skip
    return dict(queries.read_rows(con, "left_out", params).rows)


def read_providers(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The providers a warehouse holds prices for (a sheet may add one)."""
    return queries.read_rows(con, "providers_seen").column("provider")


def read_regions(con: duckdb.DuckDBPyConnection, provider: str | None = None) -> list[str]:
    """The regions of current offers (of one provider, or all)."""
    return queries.read_rows(con, "regions_seen", {"provider": provider}).column("region")


def rates(
    gpu: str | None = None,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    limit: int | None = None,
    include_illustrative: bool = False,
    include_gpu_only: bool = False,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Current per-GPU-hour rates (mart_gpu_offers_current), cheapest first by
    cheapest_order: what `gpu-pricing rates` prints. Usable offers only (int_offers_usable:
    verified prices of whole machines); `include_illustrative` and `include_gpu_only` add the
    others, with a `note` saying why each is not ranked by default."""
    with connect(warehouse) as con:
        return read_rates(
            con,
            gpu,
            memory=memory,
            pricing=pricing,
            provider=provider,
            region=region,
            limit=limit,
            include_illustrative=include_illustrative,
            include_gpu_only=include_gpu_only,
        )


def read_cheapest_summary(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """mart_cheapest_gpu_hour in the columns `refresh` prints and the report charts."""
    return queries.read(con, "cheapest_summary")


def cheapest(warehouse: str | Path | None = None) -> pl.DataFrame:
    """mart_cheapest_gpu_hour: per GPU and pricing model, the cheapest offer now."""
    return _query(
        warehouse,
        "cheapest",
    )


def read_history(
    con: duckdb.DuckDBPyConnection,
    gpu: str,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    since: date | None = None,
) -> pl.DataFrame:
    """`history` on an open connection."""
    return _history(con, queries.read, gpu, memory, pricing, provider, since)


def read_history_rows(
    con: duckdb.DuckDBPyConnection,
    gpu: str,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    since: date | None = None,
) -> Rows:
    """`read_history`'s rows as Python values (what `gpu-pricing history` prints), without
    loading Polars."""
    return _history(con, queries.read_rows, gpu, memory, pricing, provider, since)


def _history(con, read, gpu, memory, pricing, provider, since):
    """A history read by `read` (queries.read or read_rows), names parsed here."""
    choice = _gpu(gpu, memory)
    model = names.pricing_model(pricing) if pricing else None
    params = {
        "gpu": choice.name,
        "memory": choice.memory_gib,
        "pricing": model,
        "provider": _provider(provider, extra=read_providers(con)) if provider else None,
        "since": since,
    }
    if model == "spot":  # every spot price point, per zone
        return read(con, "spot_history", params)
    return read(con, "price_periods", params)


def history(
    gpu: str,
    *,
    memory: float | None = None,
    pricing: str | None = None,
    provider: str | None = None,
    since: date | None = None,
    warehouse: str | Path | None = None,
) -> pl.DataFrame:
    """Effective-dated price history of a GPU (fct_gpu_prices: valid_from, valid_to; an open
    period has valid_to null), periods still valid on `since`; spot: every price point, per
    zone (fct_spot_prices). What `gpu-pricing history` prints."""
    with connect(warehouse) as con:
        return read_history(
            con, gpu, memory=memory, pricing=pricing, provider=provider, since=since
        )


def read_default_preemption_rate(con: duckdb.DuckDBPyConnection) -> float:
    """The rate assumed for spot offers with no published interruption frequency: the
    worst published bucket's (AWS Spot Advisor '>20%', p = -ln(0.8) / 720 per hour)."""
    return float(
        queries.read(con, "default_preemption_rate")["p"][0]
    )



def _gpu(gpu: str | names.Gpu, memory: float | None = None) -> names.Gpu:
    """A GPU as typed (any case or alias, memory and form factor riding along) -> its
    reference name, memory and form factor; unknown names raise naming the closest."""
    if isinstance(gpu, names.Gpu):
        return names.Gpu(gpu.name, memory if memory is not None else gpu.memory_gib, gpu.variant)
    return names.gpu_and_memory(gpu, memory)


def _precision(precision: str) -> str:
    return names.precision(precision)[0]


def _provider(text: str, flag: str = "--provider", extra: Iterable[str] = ()) -> str:
    """A provider as typed (any case) -> the warehouse's name. One the warehouse holds
    (`extra`) is answered from it; for any other the connectors are built first (each
    registers its provider names, common.providers: an alias, a price sheet's own name, a
    provider not refreshed yet), which costs more than the command's own reads."""
    return names.provider(text, flag, extra, register=_build_connectors)


def _build_connectors() -> None:
    import connectors.registry  # noqa: F401


@contextmanager
def _maybe_connect(warehouse: str | Path | None) -> Iterator[duckdb.DuckDBPyConnection | None]:
    """A read-only connection when the warehouse exists, else None (the bundled seed then
    answers spec questions; an offer lookup says to refresh)."""
    if not _exists(warehouse):
        yield None
        return
    with connect(warehouse) as con:
        yield con


def _need(con: duckdb.DuckDBPyConnection | None, warehouse: str | Path | None, instead: str):
    if con is None:
        raise WarehouseError(
            f"{_where(warehouse)} does not exist: run `gpu-pricing refresh` "
            f"first, or pass {instead}"
        )
    return con


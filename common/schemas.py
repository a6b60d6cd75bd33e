"""Schemas declared once, at the boundary: the canonical offer row every connector's
`parse()` produces, and the DuckDB DDL of every table the pipeline writes.

Timestamps are naive UTC (`TIMESTAMP`), documented in docs/architecture.md: no session time zone can
shift them, and Polars and DuckDB agree on them without the ICU extension.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl


def utc_now() -> datetime:
    """The current time as the warehouse stores times: naive UTC, microseconds."""
    return datetime.now(UTC).replace(tzinfo=None)


def canonical_json(value: Any) -> str:
    """The one text of a request (sorted keys, no spaces): a page's sha256 covers it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def page_sha256(request: str, body: bytes | Iterable[bytes]) -> str:
    """A page's name: sha256 over its request (`canonical_json` text) and its body bytes
    (or the body's chunks in order, a downloaded file read piece by piece), as fetched: the
    raw store's object name and the ledger's `sha256`."""
    h = hashlib.sha256(request.encode())
    for chunk in (body,) if isinstance(body, bytes) else body:
        h.update(chunk)
    return h.hexdigest()


# on_demand, spot, reserved_1y/3y (reservations and committed use, effective hourly);
# capacity_block (AWS Capacity Blocks for ML: a dated block of N instances x duration,
# prepaid; its term and dates in pricing_detail); flex (GCP DWS flex-start: on-demand
# capacity obtained through the Dynamic Workload Scheduler at its own rate);
# savings_plan_1y/3y (an hourly spend commitment: Azure savings plan for compute, AWS
# Compute / EC2 Instance Savings Plans; effective hourly rate).
PRICING_MODELS = (
    "on_demand",
    "spot",
    "reserved_1y",
    "reserved_3y",
    "capacity_block",
    "flex",
    "savings_plan_1y",
    "savings_plan_3y",
)

# Where a price comes from (the `provenance` column). 'api': a provider's price API or
# published price file; 'published_sheet': a curated sheet row citing a public price page;
# 'illustrative': a sheet value that is not a bookable price (kept for context), or a price
# the demo snapshot invented (its pages say so: connectors/kit/provenance.py);
# 'unverified': a sheet row whose source a reader cannot check (no public URL). Only the
# first two feed rankings, estimates, budgets, rules and charts by default; the one home of
# that rule is sql/intermediate/int_provenances.sql.
PROVENANCES = ("api", "published_sheet", "illustrative", "unverified")

# The canonical offer: one priced offer as a connector understood it. `status` and
# `reason` carry the connector's verdict: 'ok', 'excluded' (out of scope on purpose,
# counted) or 'rejected' (invalid, goes to quarantine with `record`).
OFFER_TYPES: dict[str, str] = {
    "provider": "VARCHAR",
    "region": "VARCHAR",
    "zone": "VARCHAR",
    "instance_type": "VARCHAR",
    "pricing_model": "VARCHAR",
    "pricing_detail": "VARCHAR",
    "gpu_name": "VARCHAR",
    # the form factor where the source names it ('PCIe', 'SXM'; common/gpu.py);
    # null = the default variant of gpu_name x gpu_memory_gib in seed_gpu_specs
    "gpu_variant": "VARCHAR",
    "gpu_memory_gib": "DOUBLE",
    "gpu_count": "DOUBLE",
    "vcpus": "DOUBLE",
    "memory_gib": "DOUBLE",
    "price_usd_per_hour": "DOUBLE",
    "price_usd_per_gpu_hour": "DOUBLE",
    # the currency the provider priced in. When it is not USD, the price columns a parse
    # emits are amounts in that currency; the shared normalise step converts them with the
    # recorded rate (sql/seeds/seed_fx_rates.csv) and appends the rate and its date to
    # source_unit, or quarantines the row when no rate is recorded for the currency.
    "source_currency": "VARCHAR",
    "source_price": "DOUBLE",
    "source_unit": "VARCHAR",
    # a market anomaly (spot at or above on-demand), never where the price comes from
    "price_flag": "VARCHAR",
    "provenance": "VARCHAR",
    # false for prices of the accelerator alone (GCP's per-GPU SKUs: the host's vCPUs and
    # RAM are billed on top); null or true = the price buys a usable machine. Cheapest-
    # price rankings compare only usable machines.
    "host_included": "BOOLEAN",
    # instances of this offer the source lists as available at fetch time (Crusoe's
    # capacity quantity, an AWS Capacity Block's InstanceCount, 1 for a Vast.ai listing,
    # 0 for a Lambda type listed with no region of capacity); null where the source gives
    # no count. The planners' instance limit (models.capacity) starts from it.
    "capacity_instances": "DOUBLE",
    "effective_at": "TIMESTAMP",
    "expires_at": "TIMESTAMP",
    "fetched_at": "TIMESTAMP",
    "load_id": "VARCHAR",
    "endpoint": "VARCHAR",
    "status": "VARCHAR",
    "reason": "VARCHAR",
    "record": "VARCHAR",
}

# Columns that land in stg_<provider>__offers (status/reason/record stay behind).
STAGED_COLUMNS = [c for c in OFFER_TYPES if c not in ("status", "reason", "record")]

# A per-GPU-hour price above this is a unit or parsing error, not a price: the dearest
# real list price we know of (an 8x H200 VM in a premium region) is ~15 USD/GPU-hour.
# Offers meet it in connectors/kit/normalise.py, spot points in warehouse/plausibility.py.
MAX_USD_PER_GPU_HOUR = 200.0

OFFER_KEY = ["provider", "region", "zone", "instance_type", "pricing_model", "pricing_detail"]


def _polars_types() -> dict[str, pl.DataType]:
    """DuckDB's types of the declared columns -> Polars' (the one mapping both ways)."""
    import polars as pl

    return {
        "VARCHAR": pl.String(),
        "DOUBLE": pl.Float64(),
        "TIMESTAMP": pl.Datetime("us"),
        "BOOLEAN": pl.Boolean(),
    }


@cache
def _offer_schema() -> dict[str, pl.DataType]:
    polars_type = _polars_types()
    return {c: polars_type[t] for c, t in OFFER_TYPES.items()}


def __getattr__(name: str) -> Any:
    """OFFER_SCHEMA: the canonical offer in Polars' types (OFFER_TYPES), built when first
    read, so a command that never handles offers in Polars starts without loading it."""
    if name == "OFFER_SCHEMA":
        return _offer_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_NOT_NULL = {
    "provider",
    "region",
    "instance_type",
    "pricing_model",
    "price_usd_per_hour",
    "fetched_at",
    "load_id",
    "endpoint",
}


def conform(df: pl.DataFrame) -> pl.DataFrame:
    """Add missing canonical columns as nulls, cast, and order them: the parse boundary."""
    import polars as pl

    schema = _offer_schema()
    missing = [pl.lit(None, dtype=t).alias(c) for c, t in schema.items() if c not in df.columns]
    return df.with_columns(missing).select(
        [pl.col(c).cast(t, strict=True) for c, t in schema.items()]
    )


def table_ddl(
    table: str,
    columns: Mapping[str, pl.DataType | type[pl.DataType]],
    not_null: Collection[str] = (),
    primary_key: Collection[str] = (),
) -> str:
    """`CREATE TABLE IF NOT EXISTS` for declared Polars columns: the one way a staged
    table's DDL is written, so its DuckDB types are the ones its frames carry."""
    duck_type = {polars: duck for duck, polars in _polars_types().items()}
    return _ddl(
        table, {c: duck_type[_dtype(t)] for c, t in columns.items()}, not_null, primary_key
    )


def _ddl(
    table: str, columns: Mapping[str, str], not_null: Collection[str], primary_key: Collection[str]
) -> str:
    """table_ddl's statement, from the columns' DuckDB types."""
    unknown = (set(not_null) | set(primary_key)) - set(columns)
    if unknown:
        raise ValueError(f"{table}: constraints name undeclared columns {sorted(unknown)}")
    key = tuple(primary_key)

    def column(name: str, duck_type: str) -> str:
        sql = f"{name} {duck_type}"
        if key == (name,):
            return f"{sql} PRIMARY KEY"
        return f"{sql} NOT NULL" if name in not_null else sql

    cols = [column(c, t) for c, t in columns.items()]
    if len(key) > 1:
        cols.append(f"PRIMARY KEY ({', '.join(key)})")
    return f"CREATE TABLE IF NOT EXISTS {table} (\n  " + ",\n  ".join(cols) + "\n)"


def _dtype(dtype: pl.DataType | type[pl.DataType]) -> pl.DataType:
    return dtype() if isinstance(dtype, type) else dtype


def staging_ddl(table: str) -> str:
    return _ddl(table, {c: OFFER_TYPES[c] for c in STAGED_COLUMNS}, _NOT_NULL, ())


def staging_migrations(table: str, present: Collection[tuple[str, str]] = ()) -> list[str]:
    """Columns added to the canonical schema after a warehouse was created: all of them,
    or those `table` lacks when `present` lists the (table, column) pairs it holds."""
    return [
        f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {c} {OFFER_TYPES[c]}"
        for c in STAGED_COLUMNS
        if (table, c) not in present
    ]


def raw_table(provider: str, endpoint: str) -> str:
    """`raw_<provider>__<endpoint>`: the table an endpoint's payloads lived in before the
    raw store (the one place that name is built or read)."""
    return f"raw_{provider}__{endpoint}"


def raw_table_source(table: str) -> tuple[str, str]:
    """The provider and endpoint a `raw_table` name stands for."""
    provider, endpoint = table.removeprefix("raw_").split("__", 1)
    return provider, endpoint


def raw_ddl(table: str) -> str:
    """The table raw payloads lived in before the raw store (kept to read and migrate
    warehouses written by earlier versions)."""
    return f"""CREATE TABLE IF NOT EXISTS {table} (
  _load_id VARCHAR NOT NULL,
  _fetched_at TIMESTAMP NOT NULL,
  _scope VARCHAR NOT NULL,
  _source_url VARCHAR,
  _request JSON NOT NULL,
  _sha256 VARCHAR NOT NULL,
  _ingested_at TIMESTAMP NOT NULL,
  _payload VARCHAR
)"""


# Columns of `_load_pages` added when raw payloads moved out of the warehouse into the raw
# store: what a snapshot export and the lineage need of each page.
LOAD_PAGES_MIGRATIONS = [
    "ALTER TABLE _load_pages ADD COLUMN IF NOT EXISTS fetched_at TIMESTAMP",
    "ALTER TABLE _load_pages ADD COLUMN IF NOT EXISTS request VARCHAR",  # canonical JSON
    "ALTER TABLE _load_pages ADD COLUMN IF NOT EXISTS source_url VARCHAR",
    "ALTER TABLE _load_pages ADD COLUMN IF NOT EXISTS bytes BIGINT",  # body size as received
    "ALTER TABLE _load_pages ADD COLUMN IF NOT EXISTS format VARCHAR",  # json | csv | ...
    # a recorded page's statement of where its prices come from (connectors/kit/provenance.py)
    "ALTER TABLE _load_pages ADD COLUMN IF NOT EXISTS provenance VARCHAR",
]

# Tables renamed since a warehouse may have been written: old name -> new name, renamed
# in place (rows kept) before the bookkeeping tables are ensured. The history was named
# like an intermediate view until it became a snapshot model.
RENAMED_TABLES = {"int_offers_historized": "snp_offers_history"}

BOOKKEEPING_DDL = [
    """CREATE TABLE IF NOT EXISTS _loads (
  load_id VARCHAR PRIMARY KEY,
  run_id VARCHAR NOT NULL,
  provider VARCHAR NOT NULL,
  endpoint VARCHAR NOT NULL,
  scope VARCHAR NOT NULL,
  status VARCHAR NOT NULL,          -- ok | failed | skipped
  started_at TIMESTAMP NOT NULL,
  finished_at TIMESTAMP,
  pages INTEGER NOT NULL DEFAULT 0,
  pages_unchanged INTEGER NOT NULL DEFAULT 0,
  rows INTEGER NOT NULL DEFAULT 0,
  rejected INTEGER NOT NULL DEFAULT 0,
  excluded INTEGER NOT NULL DEFAULT 0,
  unknown_gpu INTEGER NOT NULL DEFAULT 0,
  error VARCHAR,
  source_version VARCHAR
)""",
    # Which pages make up a load, including pages that were unchanged and so not stored
    # again: the current state of an endpoint is read through this table, and each page's
    # bytes are the raw store's object named by its sha256 (warehouse.rawstore).
    """CREATE TABLE IF NOT EXISTS _load_pages (
  load_id VARCHAR NOT NULL,
  seq INTEGER NOT NULL,
  sha256 VARCHAR NOT NULL,
  unchanged BOOLEAN NOT NULL
)""",
    *LOAD_PAGES_MIGRATIONS,
    # Per connector, what its staged offers were parsed from: the digest of its current
    # pages and of the parsing code. A refresh whose digests match skips the parse.
    """CREATE TABLE IF NOT EXISTS _staged (
  connector VARCHAR PRIMARY KEY,
  pages_digest VARCHAR NOT NULL,
  code_digest VARCHAR NOT NULL,
  run_id VARCHAR NOT NULL,
  staged_at TIMESTAMP NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS _runs (
  run_id VARCHAR PRIMARY KEY,
  started_at TIMESTAMP NOT NULL,
  finished_at TIMESTAMP,
  source VARCHAR NOT NULL,          -- live | snapshot path
  providers VARCHAR NOT NULL,
  status VARCHAR
)""",
    # digest of the SQL (views, macros, seeds, assertions) a run asserted the data with
    "ALTER TABLE _runs ADD COLUMN IF NOT EXISTS asserted_sql VARCHAR",
    # digest of what the warehouse's views, macros and seeds were built from after the run
    # (warehouse.staging.views_digest), and whether the run rebuilt them
    "ALTER TABLE _runs ADD COLUMN IF NOT EXISTS views_digest VARCHAR",
    "ALTER TABLE _runs ADD COLUMN IF NOT EXISTS views_rebuilt BOOLEAN",
    # digest of the code that declares the staged tables a run made sure of
    # (flows.pipeline.tables_digest): the next run with the same code need not again
    "ALTER TABLE _runs ADD COLUMN IF NOT EXISTS tables_digest VARCHAR",
    """CREATE TABLE IF NOT EXISTS quarantine (
  load_id VARCHAR NOT NULL,
  provider VARCHAR NOT NULL,
  endpoint VARCHAR NOT NULL,
  reason VARCHAR NOT NULL,
  record VARCHAR,
  quarantined_at TIMESTAMP NOT NULL
)""",
    # Effective-dated offer history (SCD type 2), maintained by
    # sql/snapshots/snp_offers_history.sql. fct_gpu_prices is the analysts' view over it.
    f"""CREATE TABLE IF NOT EXISTS snp_offers_history (
  connector VARCHAR NOT NULL,
  {", ".join(f"{c} {OFFER_TYPES[c]}" for c in STAGED_COLUMNS)},
  valid_from TIMESTAMP NOT NULL,
  valid_to TIMESTAMP
)""",
    # The spot statistics' summary of old spot history (warehouse/spot_openings.py): per
    # time-series provider, a cutoff at or before the longest statistics window's opening,
    # the key of each series' last point before it, and the key of every series.
    """CREATE TABLE IF NOT EXISTS _spot_cutoffs (
  provider VARCHAR NOT NULL,
  cutoff TIMESTAMP NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS _spot_openings (
  provider VARCHAR NOT NULL,
  region VARCHAR,
  zone VARCHAR,
  instance_type VARCHAR,
  observed_at TIMESTAMP NOT NULL
)""",
    # and the key of every series (the offer points leave the series' offers to them)
    """CREATE TABLE IF NOT EXISTS _spot_series (
  provider VARCHAR NOT NULL,
  region VARCHAR,
  zone VARCHAR,
  instance_type VARCHAR
)""",
    """CREATE TABLE IF NOT EXISTS alert_events (
  rule VARCHAR NOT NULL,
  state VARCHAR NOT NULL,
  value DOUBLE,
  threshold DOUBLE,
  message VARCHAR,
  fired_at TIMESTAMP NOT NULL,
  delivered BOOLEAN NOT NULL DEFAULT false,
  -- the targets that have not taken the event yet, as a JSON object: target name -> why
  -- ("not yet attempted", or its last delivery error, masked); null once none is left
  pending_targets VARCHAR
)""",
]

# Columns renamed since a warehouse may have been written: (table, old name, new name).
# Applied when the warehouse is opened for writing (warehouse.db.ensure_bookkeeping),
# after BOOKKEEPING_DDL; the values are kept.
RENAMED_COLUMNS = [
    # it always held the pending targets (with their last error), not one delivery error
    ("alert_events", "delivery_error", "pending_targets"),
]


# Seeds: curated reference tables under sql/seeds/, declared here so types hold.
SEED_DDL = {
    "seed_gpu_specs": """CREATE TABLE IF NOT EXISTS seed_gpu_specs (
  gpu_name VARCHAR NOT NULL,
  gpu_memory_gib DOUBLE NOT NULL,
  vendor VARCHAR NOT NULL,
  fp32_tflops DOUBLE,
  tf32_tflops DOUBLE,
  bf16_tflops DOUBLE,
  fp8_tflops DOUBLE,
  memory_bandwidth_gbps DOUBLE,
  interconnect_gbps DOUBLE,
  tdp_watts DOUBLE,
  capex_usd DOUBLE,
  capex_as_of DATE,
  capex_source VARCHAR,
  spec_source VARCHAR,
  PRIMARY KEY (gpu_name, gpu_memory_gib)
)""",
    # Recorded conversion rates (connectors/kit/fx.py): US dollars per unit of a currency,
    # the reference rate of `as_of`, with its publisher and URL in `source`.
    "seed_fx_rates": """CREATE TABLE IF NOT EXISTS seed_fx_rates (
  currency VARCHAR NOT NULL PRIMARY KEY,
  usd_per_unit DECIMAL(18, 9) NOT NULL,
  as_of DATE NOT NULL,
  source VARCHAR NOT NULL
)""",
    # The constants the cost formulas share (hours per month and year, bytes per GiB,
    # FLOPs and bytes per parameter, the default MFU and serving utilisation), one row;
    # models/conventions.py reads the same CSV.
    "seed_conventions": """CREATE TABLE IF NOT EXISTS seed_conventions (
  hours_per_month DOUBLE NOT NULL,
  hours_per_year DOUBLE NOT NULL,
  bytes_per_gib DOUBLE NOT NULL,
  training_flops_per_param_per_token DOUBLE NOT NULL,
  inference_flops_per_param_per_token DOUBLE NOT NULL,
  training_bytes_per_param DOUBLE NOT NULL,
  serving_bytes_per_param DOUBLE NOT NULL,
  serving_headroom DOUBLE NOT NULL,
  default_mfu DOUBLE NOT NULL,
  decode_bandwidth_share DOUBLE NOT NULL,
  decode_compute_share DOUBLE NOT NULL,
  serving_memory_share DOUBLE NOT NULL,
  tensor_parallel_efficiency_nvlink DOUBLE NOT NULL,
  tensor_parallel_efficiency_pcie DOUBLE NOT NULL,
  power_usd_per_kwh DOUBLE NOT NULL,
  pue DOUBLE NOT NULL,
  host_watts_per_gpu DOUBLE NOT NULL,
  host_capex_share DOUBLE NOT NULL,
  ops_share_of_capex_per_year DOUBLE NOT NULL
)""",
    # The class of a provider (hyperscaler | marketplace; a provider not listed is a
    # specialty cloud): models/capacity.py's assumed instance limits and the on-prem
    # break-even's comparison (no marketplace listing) read it.
    "seed_provider_classes": """CREATE TABLE IF NOT EXISTS seed_provider_classes (
  provider VARCHAR NOT NULL PRIMARY KEY,
  provider_class VARCHAR NOT NULL
)""",
    # The instance limit per provider class and pricing family where a source publishes no
    # count for an offer, each with its basis and source (models/capacity.py).
    "seed_capacity_limits": """CREATE TABLE IF NOT EXISTS seed_capacity_limits (
  provider_class VARCHAR NOT NULL,
  pricing_family VARCHAR NOT NULL,
  max_instances DOUBLE NOT NULL,
  max_hours DOUBLE,
  basis VARCHAR NOT NULL,
  source VARCHAR,
  reasoning VARCHAR NOT NULL,
  PRIMARY KEY (provider_class, pricing_family)
)""",
    # Form factors of one name and memory that differ in specs (H100 80 GB PCIe vs the SXM
    # part of seed_gpu_specs): one row per extra variant; `base_variant` names the variant
    # the seed_gpu_specs row describes.
    "seed_gpu_variants": """CREATE TABLE IF NOT EXISTS seed_gpu_variants (
  gpu_name VARCHAR NOT NULL,
  gpu_memory_gib DOUBLE NOT NULL,
  gpu_variant VARCHAR NOT NULL,
  base_variant VARCHAR NOT NULL,
  fp32_tflops DOUBLE,
  tf32_tflops DOUBLE,
  bf16_tflops DOUBLE,
  fp8_tflops DOUBLE,
  memory_bandwidth_gbps DOUBLE,
  interconnect_gbps DOUBLE,
  tdp_watts DOUBLE,
  spec_source VARCHAR NOT NULL,
  PRIMARY KEY (gpu_name, gpu_memory_gib, gpu_variant)
)""",
}

"""How many instances of one offer a team can rent at once: the instance limit per offer
(provider x region x zone x instance type x pricing model) and where it comes from.

A training run needs its GPUs in one cluster: one offer in one region, at most that
offer's limit of instances. The limit is, in this order:

1. ``configured``: a number the user gives (``[plan] max_instances`` and ``[plan.capacity]``
   in gpu-pricing.toml, ``--max-instances`` on the command line): per
   ``provider/instance_type``, per ``provider``, or for every offer.
2. ``published``: the count the source lists (an offer's ``capacity_instances``: Crusoe's
   capacity quantity per type and location, an AWS Capacity Block's instance count, 1 for a
   Vast.ai listing, which is one machine, 0 for a Lambda type listed in no region with
   capacity).
3. ``assumed``: where the source gives no count, a documented assumption per provider class
   and pricing model (``ASSUMED_MAX_INSTANCES``).

The assumptions (instances of one type in one region that one team can hold at once):

- **hyperscaler** (aws, azure, gcp, oci), on demand and spot: **4**. New accounts start
  with GPU quotas of zero or a few instances, raised on request, and 8-GPU instance types
  are often sold out on demand; clusters are sold as reservations instead. Assumed.
- **hyperscaler**, reserved (1 or 3 years): **64**, the largest reservation AWS sells
  self-serve as one block (EC2 Capacity Blocks for ML: 1 to 64 instances per block, in one
  UltraCluster), taken as what a commitment can hold in one region.
- **specialty cloud** (every provider not named as another class: Lambda, Nebius,
  Crusoe, Verda, CoreWeave, ...), on demand and spot: **8** instances (64 GPUs on 8-GPU
  types); reserved: **64**. Assumed: these clouds sell on-demand nodes self-serve and
  larger clusters by contract.
- **marketplace** (vastai): **1**: a listing is one specific machine.

Single-GPU instances are never combined into a multi-machine training cluster
(``SINGLE_GPU_TRAINING_INSTANCES`` = 1): no provider here documents an inter-node
interconnect for them, and data-parallel training over the public network is not what
the efficiency curves measure. Multi-GPU types are assumed to have the cluster network
their provider sells them with (EFA, InfiniBand).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path

import polars as pl

CAPACITY_SOURCES = ("published", "assumed", "configured")
SEED = Path(__file__).resolve().parent.parent / "sql" / "seeds" / "seed_provider_classes.csv"
# provider -> hyperscaler | marketplace (sql/seeds/seed_provider_classes.csv, which the SQL
# models read too); every other provider is a specialty cloud
with SEED.open(newline="", encoding="utf-8") as _fh:
    PROVIDER_CLASSES = {row["provider"]: row["provider_class"] for row in csv.DictReader(_fh)}
DEFAULT_PROVIDER_CLASS = "specialty"
# (provider class, pricing family) -> instances; pricing family: "reserved" for
# reserved_1y / reserved_3y, else "on_demand" (on demand and spot)
ASSUMED_MAX_INSTANCES = {
    ("hyperscaler", "on_demand"): 4,
    ("hyperscaler", "reserved"): 64,
    ("specialty", "on_demand"): 8,
    ("specialty", "reserved"): 64,
    ("marketplace", "on_demand"): 1,
    ("marketplace", "reserved"): 1,
}
SINGLE_GPU_TRAINING_INSTANCES = 1
CLASS_LABELS = {
    "hyperscaler": "hyperscaler",
    "specialty": "specialty cloud",
    "marketplace": "marketplace",
}


def provider_class(provider: pl.Expr) -> pl.Expr:
    """hyperscaler | specialty | marketplace."""
    return provider.replace_strict(
        PROVIDER_CLASSES, default=DEFAULT_PROVIDER_CLASS, return_dtype=pl.String
    )


def _pricing_family(pricing_model: pl.Expr) -> pl.Expr:
    return (
        pl.when(pricing_model.str.starts_with("reserved"))
        .then(pl.lit("reserved"))
        .otherwise(pl.lit("on_demand"))
    )


def check_overrides(overrides: Mapping[str, float] | None) -> dict[str, int]:
    """Configured limits: keys `*` (every offer), `provider` or `provider/instance_type`,
    values whole numbers >= 1. Raises naming the key and value."""
    out: dict[str, int] = {}
    for key, value in (overrides or {}).items():
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is None or number < 1 or not float(number).is_integer():
            raise ValueError(
                f"max instances for {key!r} must be a whole number >= 1, got {value!r}"
            )
        provider, slash, instance_type = str(key).partition("/")
        out[provider.strip().lower() + slash + instance_type.strip()] = int(number)
    return out


def with_capacity(
    offers: pl.DataFrame,
    overrides: Mapping[str, float] | None = None,
    *,
    training: bool = True,
) -> pl.DataFrame:
    """Add `max_instances`, `capacity_source` (published | assumed | configured) and
    `capacity_note` (what the limit is, in words) to a frame of offers (provider,
    instance_type, pricing_model, gpu_count and, where known, capacity_instances). With
    `training`, single-GPU instances are held to one machine (module docstring)."""
    limits = check_overrides(overrides)
    if "capacity_instances" not in offers.columns:
        offers = offers.with_columns(pl.lit(None, dtype=pl.Float64).alias("capacity_instances"))
    pclass = provider_class(pl.col("provider"))
    family = _pricing_family(pl.col("pricing_model"))
    assumed = _assumed_expr(pclass, family)
    by_type = pl.concat_str(pl.col("provider"), pl.lit("/"), pl.col("instance_type"))
    configured = (
        by_type.replace_strict(
            {k: float(v) for k, v in limits.items() if "/" in k},
            default=None,
            return_dtype=pl.Float64,
        )
        .fill_null(
            pl.col("provider").replace_strict(
                {k: float(v) for k, v in limits.items() if "/" not in k and k != "*"},
                default=None,
                return_dtype=pl.Float64,
            )
        )
        .fill_null(pl.lit(float(limits["*"]) if "*" in limits else None, dtype=pl.Float64))
    )
    source = (
        pl.when(configured.is_not_null())
        .then(pl.lit("configured"))
        .when(pl.col("capacity_instances").is_not_null())
        .then(pl.lit("published"))
        .otherwise(pl.lit("assumed"))
    )
    limit = pl.coalesce(configured, pl.col("capacity_instances"), assumed)
    note = (
        pl.when(source == "configured")
        .then(pl.format("configured: {} instance(s)", configured.cast(pl.Int64)))
        .when(source == "published")
        .then(
            pl.format(
                "published by the source: {} instance(s) available at the fetch",
                pl.col("capacity_instances").cast(pl.Int64),
            )
        )
        .otherwise(
            pl.format(
                "assumed for a {} ({}): {} instance(s)",
                pclass.replace_strict(CLASS_LABELS, return_dtype=pl.String),
                pl.when(family == "reserved")
                .then(pl.lit("reserved"))
                .otherwise(pl.lit("on demand and spot")),
                assumed.cast(pl.Int64),
            )
        )
    )
    single = pl.lit(training) & (pl.col("gpu_count") <= 1) & (limit > SINGLE_GPU_TRAINING_INSTANCES)
    return offers.with_columns(
        pl.when(single)
        .then(pl.lit(float(SINGLE_GPU_TRAINING_INSTANCES)))
        .otherwise(limit)
        .alias("max_instances"),
        source.alias("capacity_source"),
        pl.when(single)
        .then(
            note
            + pl.lit(
                "; single-GPU instance: one machine for training (no documented "
                "inter-node interconnect)"
            )
        )
        .otherwise(note)
        .alias("capacity_note"),
    )


def _assumed_expr(pclass: pl.Expr, family: pl.Expr) -> pl.Expr:
    key = pl.concat_str(pclass, pl.lit(":"), family)
    return key.replace_strict(
        {f"{c}:{f}": float(n) for (c, f), n in ASSUMED_MAX_INSTANCES.items()},
        return_dtype=pl.Float64,
    )

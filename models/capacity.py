"""How many instances of one offer a team can rent at once: the instance limit per offer
(provider x region x zone x instance type x pricing model) and where it comes from.

A training run needs its GPUs in one cluster: one offer in one region, at most that
offer's limit of instances. The limit is, in this order:

1. ``configured``: a number the user gives (``[plan] max_instances`` and ``[plan.capacity]``
   in gpu-pricing.toml, ``--max-instances`` on the command line): per
   ``provider/instance_type``, per ``provider``, or for every offer.
2. ``published``: the limit the provider publishes for the product (an AWS Capacity Block:
   up to 64 instances), else the count the source lists for the offer (its
   ``capacity_instances``: Crusoe's capacity quantity per type and location, 1 for a
   Vast.ai listing, which is one machine, 0 for a Lambda type listed in no region with
   capacity).
3. ``assumed``: where the source gives no count, a documented assumption per provider class
   and pricing family (``LIMITS``, from sql/seeds/seed_capacity_limits.csv).

The limits per provider class and pricing family live in
``sql/seeds/seed_capacity_limits.csv``, each with its basis (``published`` by the provider
or ``assumed``), its source and its reasoning (sql/seeds/README.md):

- **hyperscaler** (aws, azure, gcp, oci), on demand and spot: **4**, assumed (AWS's
  default P-instance Spot quota is 0 vCPUs, raised on request; no hyperscaler publishes a
  default count of 8-GPU instances); reserved (1 or 3 years): **64**, assumed by analogy
  with the largest AWS Capacity Block.
- **AWS Capacity Blocks** (``capacity_block``): **64** instances, published ("up to 64
  instances" per block, in one EC2 UltraCluster), and a run of at most **4,368 hours**
  (182 days, the longest block): the limit is ``published`` whatever instance count the
  priced offering was asked for, and ``max_hours`` bounds the run's wall clock.
- **specialty cloud** (every provider not named as another class: Lambda, Nebius,
  Crusoe, Verda, CoreWeave, ...): on demand and spot **8** instances, reserved **64**,
  assumed (no public per-account figure found).
- **marketplace** (vastai): **1**, published: a Vast.ai offer is a slice of one machine.

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
SEEDS = Path(__file__).resolve().parent.parent / "sql" / "seeds"
SEED = SEEDS / "seed_provider_classes.csv"
LIMITS_SEED = SEEDS / "seed_capacity_limits.csv"
# provider -> hyperscaler | marketplace (sql/seeds/seed_provider_classes.csv, which the SQL
# models read too); every other provider is a specialty cloud
with SEED.open(newline="", encoding="utf-8") as _fh:
    PROVIDER_CLASSES = {row["provider"]: row["provider_class"] for row in csv.DictReader(_fh)}
DEFAULT_PROVIDER_CLASS = "specialty"
# (provider class, pricing family) -> the limit row of sql/seeds/seed_capacity_limits.csv
# (max_instances, max_hours, basis, source, reasoning); pricing family: "reserved" for
# reserved_1y / reserved_3y, "capacity_block", else "on_demand" (on demand and spot)
with LIMITS_SEED.open(newline="", encoding="utf-8") as _fh:
    LIMITS = {
        (row["provider_class"], row["pricing_family"]): {
            "max_instances": float(row["max_instances"]),
            "max_hours": float(row["max_hours"]) if row["max_hours"] else None,
            "basis": row["basis"],
            "source": row["source"] or None,
            "reasoning": row["reasoning"],
        }
        for row in csv.DictReader(_fh)
    }
ASSUMED_MAX_INSTANCES = {key: int(row["max_instances"]) for key, row in LIMITS.items()}
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
        .when(pricing_model == "capacity_block")
        .then(pl.lit("capacity_block"))
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
    """Add `max_instances`, `capacity_source` (published | assumed | configured),
    `capacity_note` (what the limit is, in words) and `max_hours` (the longest run the
    product allows, null for no limit) to a frame of offers (provider, instance_type,
    pricing_model, gpu_count and, where known, capacity_instances). The limit is the
    configured one, else the provider's published limit for the product
    (seed_capacity_limits, basis published: a Capacity Block's 64 instances), else the
    offer's own published count, else the assumed one. With `training`, single-GPU
    instances are held to one machine (module docstring)."""
    limits = check_overrides(overrides)
    if "capacity_instances" not in offers.columns:
        offers = offers.with_columns(pl.lit(None, dtype=pl.Float64).alias("capacity_instances"))
    pclass = provider_class(pl.col("provider"))
    family = _pricing_family(pl.col("pricing_model"))
    seeded, basis, max_hours, reference = (_seed_expr(pclass, family, f) for f in _SEED_FIELDS)
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
    product = basis == "published"  # the provider publishes the product's limit
    source = (
        pl.when(configured.is_not_null())
        .then(pl.lit("configured"))
        .when(product | pl.col("capacity_instances").is_not_null())
        .then(pl.lit("published"))
        .otherwise(pl.lit("assumed"))
    )
    limit = (
        pl.when(configured.is_not_null())
        .then(configured)
        .when(product)
        .then(seeded)
        .otherwise(pl.coalesce(pl.col("capacity_instances"), seeded))
    )
    family_label = (
        pl.when(family == "reserved")
        .then(pl.lit("reserved"))
        .when(family == "capacity_block")
        .then(pl.lit("capacity blocks"))
        .otherwise(pl.lit("on demand and spot"))
    )
    note = (
        pl.when(source == "configured")
        .then(pl.format("configured: {} instance(s)", configured.cast(pl.Int64)))
        .when(product)
        .then(
            pl.format(
                "published by the provider for {}: {} instance(s) ({})",
                family_label,
                seeded.cast(pl.Int64),
                reference.fill_null("seed_capacity_limits"),
            )
        )
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
                family_label,
                seeded.cast(pl.Int64),
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
        max_hours.alias("max_hours"),
    )


_SEED_FIELDS = ("max_instances", "basis", "max_hours", "source")


def _seed_expr(pclass: pl.Expr, family: pl.Expr, field: str) -> pl.Expr:
    """One field of the class's seed row for the pricing family (a family the class has
    no row for takes its on-demand row)."""
    dtype = pl.Float64 if field in ("max_instances", "max_hours") else pl.String
    values = {f"{c}:{f}": row[field] for (c, f), row in LIMITS.items()}

    def lookup(key: pl.Expr) -> pl.Expr:
        return key.replace_strict(values, default=None, return_dtype=dtype)

    exact = lookup(pl.concat_str(pclass, pl.lit(":"), family))
    on_demand = lookup(pl.concat_str(pclass, pl.lit(":on_demand")))
    has_row = pl.concat_str(pclass, pl.lit(":"), family).is_in(list(values))
    return pl.when(has_row).then(exact).otherwise(on_demand)

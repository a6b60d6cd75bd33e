"""AWS parse of DescribeInstanceTypes: GPU name, memory and count per instance type,
the bundled instance_types.csv filling what the live pages do not cover."""

from __future__ import annotations

import polars as pl

from common.gpu import canonical, snap
from connectors.aws import settings as s
from connectors.aws.shapes import (
    INSTANCE_TYPES_CSV,
    INSTANCE_TYPES_PAGE,
    SPEC_COLUMNS,
    _endpoint,
)
from connectors.kit.decode import guard_pages

# --- instance specs ------------------------------------------------------------------------


def _identity(specs: pl.DataFrame) -> pl.DataFrame:
    """`gpu_name` and `gpu_memory_gib` of spec rows that hold AWS's own words for the
    accelerator (`_gpu`: "A10G", "RTX PRO Server 6000", "Trainium2") and one whole GPU's
    memory as AWS states it (`_mib`): the shared GPU rule names it and snaps the memory
    to the marketed size (common/gpu.py). The live pages and the bundled table both pass
    here; neither states a name itself."""
    named = specs.with_columns(gpu_name=canonical(pl.col("_gpu")))
    return named.with_columns(
        gpu_memory_gib=snap(pl.col("gpu_name"), (pl.col("_mib") / 1024).round(2))
    )


def bundled_specs() -> pl.DataFrame:
    """The recorded table (connectors/aws/instance_types.csv): AWS's words and MiB per
    instance type, as DescribeInstanceTypes (or the instance-type page cited in `source`)
    states them, through the same rule as the live pages."""
    table = pl.read_csv(
        INSTANCE_TYPES_CSV,
        schema_overrides={
            "gpu_memory_mib": pl.Float64,
            "gpu_count": pl.Float64,
            "vcpus": pl.Float64,
            "memory_gib": pl.Float64,
        },
    ).select(
        "instance_type",
        pl.col("gpu").alias("_gpu"),
        pl.col("gpu_manufacturer").str.to_uppercase(),
        pl.col("gpu_memory_mib").alias("_mib"),
        "gpu_count",
        "vcpus",
        "memory_gib",
        pl.when(pl.col("gpu_manufacturer") == "AWS")
        .then(pl.lit("neuron"))
        .otherwise(pl.lit("gpu"))
        .alias("accelerator"),
        pl.lit("bundled").alias("source"),
        pl.lit(None, dtype=pl.String).alias("load_id"),
        pl.lit(None, dtype=pl.Datetime("us")).alias("fetched_at"),
    )
    return _identity(table).select(list(SPEC_COLUMNS))


def parse_instance_types(pages: pl.DataFrame) -> pl.DataFrame:
    """One row per instance type seen in DescribeInstanceTypes pages (newest page wins)."""
    raw = _endpoint(pages, s.INSTANCE_TYPES)
    if raw.is_empty():
        return pl.DataFrame(schema=SPEC_COLUMNS)
    lists = pl.col("payload").str.json_decode(INSTANCE_TYPES_PAGE).struct.field("InstanceTypes")
    guard_pages(raw, lists, "InstanceTypes", allow_empty=True)  # a region may have none
    types = (
        raw.select(
            "load_id",
            "fetched_at",
            pl.col("payload")
            .str.json_decode(INSTANCE_TYPES_PAGE)
            .struct.field("InstanceTypes")
            .alias("t"),
        )
        .explode("t")
        .drop_nulls("t")
        .unnest("t")
    )
    gpu = pl.col("GpuInfo").struct.field("Gpus").list.first()
    neuron = pl.col("NeuronInfo").struct.field("NeuronDevices").list.first()
    partition = (
        pl.when(gpu.struct.field("GpuPartitionSize") > 0)
        .then(gpu.struct.field("GpuPartitionSize"))
        .otherwise(1.0)
    )
    gpu_count = (
        pl.when(gpu.struct.field("Count") > 0)
        .then(gpu.struct.field("Count").cast(pl.Float64))
        # g6f / gr6f: Count 0, a fraction of one GPU (never 0)
        .when(gpu.is_not_null())
        .then(gpu.struct.field("LogicalGpuCount").cast(pl.Float64) * partition)
        .otherwise(neuron.struct.field("Count").cast(pl.Float64))
    )
    full_mib = pl.coalesce(
        (gpu.struct.field("MemoryInfo").struct.field("SizeInMiB") / partition).round(0),
        neuron.struct.field("MemoryInfo").struct.field("SizeInMiB").cast(pl.Float64),
    ).cast(pl.Int64)
    specs = types.select(
        pl.col("InstanceType").alias("instance_type"),
        pl.coalesce(gpu.struct.field("Name"), neuron.struct.field("Name")).alias("_gpu"),
        pl.coalesce(
            gpu.struct.field("Manufacturer"), pl.when(neuron.is_not_null()).then(pl.lit("AWS"))
        )
        .str.to_uppercase()
        .alias("gpu_manufacturer"),
        full_mib.alias("_mib"),
        gpu_count.alias("gpu_count"),
        pl.col("VCpuInfo").struct.field("DefaultVCpus").cast(pl.Float64).alias("vcpus"),
        (pl.col("MemoryInfo").struct.field("SizeInMiB") / 1024).alias("memory_gib"),
        pl.when(gpu.is_not_null())
        .then(pl.lit("gpu"))
        .when(neuron.is_not_null())
        .then(pl.lit("neuron"))
        .alias("accelerator"),
        pl.lit("describe_instance_types").alias("source"),
        "load_id",
        "fetched_at",
    )
    return (
        _identity(specs)
        .sort("fetched_at", "load_id", descending=True)
        .unique("instance_type", keep="first", maintain_order=True)
        .select(list(SPEC_COLUMNS))
        .sort("instance_type")
    )


def instance_specs(pages: pl.DataFrame) -> pl.DataFrame:
    """Live specs where DescribeInstanceTypes was read, the bundled table for the rest."""
    live = parse_instance_types(pages)
    bundled = bundled_specs().join(live.select("instance_type"), on="instance_type", how="anti")
    return pl.concat([live, bundled], how="vertical_relaxed").sort("instance_type")

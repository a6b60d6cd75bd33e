"""GPU identity: the one rule that turns what a source says about a GPU (its own GPU name,
description or instance type) into the reference name, memory and form factor.

Every provider's rows pass through `identify()` in the shared normalise step
(connectors/kit/normalise.py), after the connector's own parse:

- `gpu_variant` (form factor, SXM or PCIe): where the source's words state one ("NVIDIA
  H100 PCIe", "8x H100 (80 GB SXM5)", Vast's "H100 PCIE", FluidStack's `H100_PCIE_80GB`,
  Hyperstack's `H100-80G-PCIe-NVLink`), from `gpu_text` (the column a connector hands
  over with the source's GPU words) else the instance type. A null variant is costed as
  the seed's default variant of that name and memory (the SXM part for H100 and A100, which
  multi-GPU cloud instances carry); `sql/seeds/seed_gpu_variants.csv` lists the others.
- `gpu_name`: a connector's own map names the GPUs its source lists; where it leaves one
  unnamed, the shared map below reads the same words (`RTX 6000 Ada`, `RTX-5090`,
  `Standard_NG8ads_V620_v1`), and only a name of the GPU reference
  (`sql/seeds/seed_gpu_specs.csv`) is ever given.
- `gpu_memory_gib`: where the connector gives none, a size the source's words state that
  the reference lists for that GPU ("gpu-6000adax1-48gb"), else the reference's size when
  the GPU comes in one size only.
"""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

import polars as pl

SEED_GPU_SPECS = Path(__file__).resolve().parents[2] / "sql" / "seeds" / "seed_gpu_specs.csv"
# the column a connector may hand over with the source's own words for the GPU
GPU_TEXT = "gpu_text"

# (pattern on the source's GPU words, gpu_variant), first match wins. A form factor is a
# whole token: `_PCIE_`, `-PCIe-`, `(80 GB PCIe)`, `SXM5`.
FORM_FACTORS: tuple[tuple[str, str], ...] = (
    (r"(?i)(?:^|[^a-z0-9])pcie(?:[^a-z]|$)", "PCIe"),
    (r"(?i)(?:^|[^a-z0-9])sxm\d?(?:[^a-z0-9]|$)", "SXM"),
)

# (pattern on the source's GPU words, gpu_name of the reference), first match wins, so the
# longer names come first. Used where a connector's own map leaves a GPU unnamed.
GPU_NAMES: tuple[tuple[str, str], ...] = (
    (r"(?i)rtx[\s_-]*pro[\s_-]*6000", "RTX PRO 6000"),
    (r"(?i)6000[\s_-]*ada", "RTX 6000 ADA"),
    (r"(?i)rtx[\s_-]*5090", "RTX 5090"),
    (r"(?i)rtx[\s_-]*4090", "RTX 4090"),
    (r"(?i)rtx[\s_-]*a6000", "RTX A6000"),
    (r"(?i)(?:^|[^a-z0-9])v620(?:[^a-z0-9]|$)", "RADEON PRO V620"),
    (r"(?i)gb300", "GB300"),
    (r"(?i)gb200", "GB200"),
    (r"(?i)gh200", "GH200"),
    (r"(?i)mi325x", "MI325X"),
    (r"(?i)mi300x", "MI300X"),
    (r"(?i)(?:^|[^a-z0-9])h20(?:[^a-z0-9]|$)", "H20"),
    (r"(?i)(?:^|[^a-z0-9])v100(?:[^a-z0-9]|$)", "V100"),
)


def form_factor(raw: pl.Expr, extra: tuple[tuple[str, str], ...] = ()) -> pl.Expr:
    """'PCIe' | 'SXM' from a source's GPU words, else null (the default variant).
    `extra` adds a connector's own patterns, checked first."""
    out: pl.Expr = pl.lit(None, dtype=pl.String)
    for pattern, variant in reversed((*extra, *FORM_FACTORS)):
        out = pl.when(raw.str.contains(pattern)).then(pl.lit(variant)).otherwise(out)
    return out


def gpu_name(raw: pl.Expr) -> pl.Expr:
    """The reference name the source's GPU words name (GPU_NAMES), else null."""
    out: pl.Expr = pl.lit(None, dtype=pl.String)
    for pattern, name in reversed(GPU_NAMES):
        out = pl.when(raw.str.contains(pattern)).then(pl.lit(name)).otherwise(out)
    return out


def name_of(text: str) -> str | None:
    """The reference name GPU_NAMES gives one text (what a user typed), else None."""
    return next((name for pattern, name in GPU_NAMES if re.search(pattern, text)), None)


@cache
def reference_sizes() -> dict[str, frozenset[float]]:
    """gpu_name -> its memory sizes in the GPU reference."""
    sizes: dict[str, set[float]] = {}
    with SEED_GPU_SPECS.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            sizes.setdefault(row["gpu_name"], set()).add(float(row["gpu_memory_gib"]))
    return {name: frozenset(s) for name, s in sizes.items()}


def single_sizes() -> dict[str, float]:
    """gpu_name -> its memory, for the GPUs the reference lists in one size only."""
    return {name: next(iter(s)) for name, s in reference_sizes().items() if len(s) == 1}


# a memory size in the source's words: "48GB", "80G", "32 GiB", "-48gb"
_MEMORY = r"(?i)(?:^|[^0-9])(\d{1,3})\s*(?:gib|gb|g)(?:[^a-z0-9]|$)"


def _memory(name: pl.Expr, words: pl.Expr) -> pl.Expr:
    """The GPU's memory: a size the source's words state that the reference lists for that
    GPU, else the reference's only size."""
    stated = words.str.extract(_MEMORY, 1).cast(pl.Float64, strict=False)
    known = {f"{n}|{m:g}": m for n, sizes in reference_sizes().items() for m in sizes}
    listed = pl.format("{}|{}", name, stated.cast(pl.Int64)).replace_strict(
        known, default=None, return_dtype=pl.Float64
    )
    single = name.replace_strict(single_sizes(), default=None, return_dtype=pl.Float64)
    return pl.coalesce(listed, single)


def identify(df: pl.DataFrame, text: pl.Series | None = None) -> pl.DataFrame:
    """Fill `gpu_name`, `gpu_memory_gib` and `gpu_variant` where the connector left them
    null, from `text` (the source's GPU words a connector handed over as `gpu_text`, one
    per row) else the row's `instance_type`."""
    words = pl.col("instance_type")
    if text is not None:
        df = df.with_columns(text.cast(pl.String).alias(GPU_TEXT))
        words = pl.coalesce(pl.col(GPU_TEXT), words)
    named = df.with_columns(
        gpu_name=pl.coalesce(pl.col("gpu_name"), gpu_name(words)),
        gpu_variant=pl.coalesce(pl.col("gpu_variant"), form_factor(words)),
    )
    return named.with_columns(
        gpu_memory_gib=pl.coalesce(pl.col("gpu_memory_gib"), _memory(pl.col("gpu_name"), words))
    ).drop(GPU_TEXT, strict=False)

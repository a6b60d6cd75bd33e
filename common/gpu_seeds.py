"""The GPU reference's seeds as Python values (sql/seeds/): the patterns that name a GPU
from a source's words, the instance families, the reference's memory sizes, and the name
one text gives. Read by the identity rule (common/gpu.py, in Polars) and by the commands
that parse a user's GPU name (common/names.py), which need no Polars."""

from __future__ import annotations

import csv
import re
from functools import cache
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[1] / "sql" / "seeds"
SEED_GPU_SPECS = SEEDS / "seed_gpu_specs.csv"
SEED_GPU_ALIASES = SEEDS / "seed_gpu_aliases.csv"
SEED_GPU_VARIANTS = SEEDS / "seed_gpu_variants.csv"
SEED_INSTANCE_FAMILIES = SEEDS / "seed_instance_families.csv"

def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@cache
def aliases() -> tuple[tuple[str, str | None, float | None], ...]:
    """(pattern, gpu_name, stated memory the row requires or None), in the seed's order. An
    empty name is a GPU the words name that the reference lacks: matched, left unnamed."""
    return tuple(
        (
            "(?i)" + r["pattern"],
            r["gpu_name"] or None,
            float(m) if (m := r["stated_memory_gib"]) else None,
        )
        for r in _rows(SEED_GPU_ALIASES)
    )


@cache
def families() -> tuple[tuple[str, str, str | None, float | None, str | None], ...]:
    """(provider, instance-type pattern, gpu_name, gpu_memory_gib, gpu_variant); empty
    cells are None (the source states that part itself)."""
    return tuple(
        (
            r["provider"],
            r["instance_type_pattern"],
            r["gpu_name"] or None,
            float(r["gpu_memory_gib"]) if r["gpu_memory_gib"] else None,
            r["gpu_variant"] or None,
        )
        for r in _rows(SEED_INSTANCE_FAMILIES)
    )


@cache
def reference_sizes() -> dict[str, frozenset[float]]:
    """gpu_name -> its memory sizes in the GPU reference."""
    sizes: dict[str, set[float]] = {}
    for row in _rows(SEED_GPU_SPECS):
        sizes.setdefault(row["gpu_name"], set()).add(float(row["gpu_memory_gib"]))
    return {name: frozenset(s) for name, s in sizes.items()}


def single_sizes() -> dict[str, float]:
    """gpu_name -> its memory, for the GPUs the reference lists in one size only."""
    return {name: next(iter(s)) for name, s in reference_sizes().items() if len(s) == 1}


def name_of(text: str, memory: float | None = None) -> str | None:
    """The reference name the alias seed gives one text (what a user typed), else None."""
    return next(
        (
            name
            for pattern, name, need in aliases()
            if (need is None or need == memory) and re.search(pattern, text)
        ),
        None,
    )

"""The GPU form factor a provider's own name for a GPU states, as `gpu_variant`.

Where one GPU name and memory size ships in variants with different specs (H100 80 GB
SXM5: 989 dense BF16 TFLOPS; H100 PCIe: 756), `sql/seeds/seed_gpu_specs.csv` has a row per
variant. A connector whose source names the form factor ("NVIDIA H100 PCIe", "8x H100 (80
GB SXM5)", Vast's "H100 PCIE") sets `gpu_variant` with this expression; a null variant is
costed as the seed's default variant of that name and memory (the SXM part for H100 and
A100, which multi-GPU cloud instances carry).
"""

from __future__ import annotations

import polars as pl

# (pattern on the provider's GPU text, gpu_variant), first match wins
FORM_FACTORS: tuple[tuple[str, str], ...] = (
    (r"(?i)\bpcie\b", "PCIe"),
    (r"(?i)\bsxm\d?\b", "SXM"),
)


def form_factor(raw: pl.Expr, extra: tuple[tuple[str, str], ...] = ()) -> pl.Expr:
    """'PCIe' | 'SXM' from a provider's GPU text, else null (the default variant).
    `extra` adds a connector's own patterns, checked first."""
    out: pl.Expr = pl.lit(None, dtype=pl.String)
    for pattern, variant in reversed((*extra, *FORM_FACTORS)):
        out = pl.when(raw.str.contains(pattern)).then(pl.lit(variant)).otherwise(out)
    return out

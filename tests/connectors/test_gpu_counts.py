"""A GPU offer whose GPU count is zero or missing is quarantined with a reason, by one
shared rule (connectors.kit.normalise), never published with gpu_count 0 and never dropped
without a trace: each provider's demo pages with the count of its GPU rows set to 0 (or
removed) parse and normalise into rejected rows that name the count, and no staged offer
keeps a count that is not positive or names a GPU without a count. A CPU plan (no GPU
named, none counted) stays an exclusion; an offer that names no known GPU and no count
(an Azure VM size not in its table) is an unknown GPU, published and counted as such."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from connectors.kit import page as kit_page
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.normalise import cpu_only
from connectors.registry import PROVIDERS

DEMO = Path(__file__).resolve().parents[2] / "connectors" / "demo_snapshot"
# provider -> the JSON key that holds the GPU count of one of its items
COUNT_KEY = {
    "digitalocean": "count",  # sizes[].gpu_info.count
    "crusoe": "num_gpu",
    "cloudrift": "gpu_count",
    "hotaisle": "count",  # available[].Specs.gpu[].count
    "seeweb": "gpu",
    "verda": "number_of_gpus",
}


def _set_counts(value: Any, key: str, to: Any) -> tuple[Any, int]:
    """`value` with every positive `key` set to `to` (or removed when `to` is ...)."""
    if isinstance(value, list):
        out = [_set_counts(v, key, to) for v in value]
        return [v for v, _ in out], sum(n for _, n in out)
    if isinstance(value, dict):
        changed, n = {}, 0
        for k, v in value.items():
            if k == key and isinstance(v, int | float | str) and str(v) not in ("", "0"):
                n += 1
                if to is not ...:
                    changed[k] = to
                continue
            changed[k], m = _set_counts(v, key, to)
            n += m
        return changed, n
    return value, 0


@pytest.mark.parametrize("to", [0, None, ...], ids=["zero", "null", "absent"])
@pytest.mark.parametrize("provider", sorted(COUNT_KEY))
def test_a_gpu_row_without_a_positive_count_is_quarantined(provider, to):
    pages, touched = [], 0
    for page in kit_snapshot.read_provider(DEMO, provider):
        body, n = _set_counts(page.decoded(), COUNT_KEY[provider], to)
        touched += n
        pages.append(kit_page.Page(provider, page.endpoint, page.fetched_at, page.request, text=json.dumps(body)))  # fmt: skip
    assert touched, f"{provider}: no {COUNT_KEY[provider]!r} in its demo pages"
    result = PROVIDERS[provider].parse(kit_page.pages_frame(pages)).normalised()
    # staged: no count that is not positive, no GPU named without a count (a row that
    # names no known GPU and counts none is an unknown GPU, counted as such)
    assert result.offers.filter(
        (pl.col("gpu_count").is_null() & pl.col("gpu_name").is_not_null())
        | (pl.col("gpu_count") <= 0)
    ).is_empty()
    reasons = result.rejected.get_column("reason").to_list()
    assert any("gpu_count" in r and "not positive" in r for r in reasons), (provider, reasons)


def test_a_cpu_plan_is_one_that_names_no_gpu():
    frame = pl.DataFrame(
        {"n": [0, None, 0, None, 8], "label": ["", None, "H100", "H100", "H100"]},
        schema={"n": pl.Int64, "label": pl.String},
    )
    got = frame.select(cpu_only(pl.col("n"), pl.col("label"))).to_series().to_list()
    assert got == [True, True, False, False, False]

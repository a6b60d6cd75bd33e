"""The instance limits per provider class and pricing family (models.capacity, from
sql/seeds/seed_capacity_limits.csv): each with its basis and reasoning, a published one
with its source; Capacity Blocks at AWS's published 64 instances and 182 days."""

from __future__ import annotations

import polars as pl
import pytest

from models import capacity


def offers(*rows: dict) -> pl.DataFrame:
    base = {"instance_type": "x", "gpu_count": 8.0, "capacity_instances": None}
    return pl.DataFrame(
        [{**base, **r} for r in rows],
        schema={
            "provider": pl.String, "instance_type": pl.String, "pricing_model": pl.String,
            "gpu_count": pl.Float64, "capacity_instances": pl.Float64,
        },
    )


def test_every_limit_states_its_basis_and_reasoning_and_a_published_one_its_source():
    assert capacity.LIMITS
    for key, row in capacity.LIMITS.items():
        assert row["basis"] in ("published", "assumed"), key
        assert len(row["reasoning"]) > 40, key
        if row["basis"] == "published":
            assert (row["source"] or "").startswith("https://"), key


def test_capacity_blocks_take_awss_published_64_instances_and_182_days():
    # the demo's Capacity Block offerings were asked for 1 instance: a block may hold 64
    got = capacity.with_capacity(
        offers({"provider": "aws", "pricing_model": "capacity_block", "capacity_instances": 1.0})
    ).row(0, named=True)
    assert (got["max_instances"], got["capacity_source"], got["max_hours"]) == (
        64.0, "published", 182 * 24.0
    )
    assert "ec2-capacity-blocks" in got["capacity_note"]


@pytest.mark.parametrize(
    ("provider", "pricing", "published", "expected"),
    [
        ("aws", "on_demand", None, (4.0, "assumed")),
        ("gcp", "spot", None, (4.0, "assumed")),
        ("azure", "reserved_1y", None, (64.0, "assumed")),
        ("lambdalabs", "on_demand", None, (8.0, "assumed")),
        ("lambdalabs", "on_demand", 0.0, (0.0, "published")),  # no region with capacity
        ("crusoe", "reserved_3y", None, (64.0, "assumed")),
        ("vastai", "on_demand", None, (1.0, "published")),  # a listing is one machine
    ],
)
def test_limits_by_class_and_pricing_family(provider, pricing, published, expected):
    got = capacity.with_capacity(
        offers({"provider": provider, "pricing_model": pricing, "capacity_instances": published})
    ).row(0, named=True)
    assert (got["max_instances"], got["capacity_source"]) == expected
    assert got["max_hours"] is None


def test_a_configured_limit_wins_over_a_published_one():
    got = capacity.with_capacity(
        offers({"provider": "aws", "pricing_model": "capacity_block", "capacity_instances": 1.0}),
        {"aws": 16},
    ).row(0, named=True)
    assert (got["max_instances"], got["capacity_source"]) == (16.0, "configured")

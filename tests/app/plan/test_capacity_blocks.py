"""Planning on AWS Capacity Blocks on the demo: a block holds up to 64 instances (published
by AWS, whatever instance count the demo's offerings were asked for) and lasts at most 182
days, so a plan on blocks stays within both and says where its limit comes from."""

from __future__ import annotations

import gpu_pricing
from tests.app.plan.test_plan_cli import TRAIN, cli_json

BLOCK_HOURS = 182 * 24  # 4,368


def test_a_70b_2t_plan_on_capacity_blocks_uses_the_published_64_instances(demo_warehouse):
    doc = cli_json(demo_warehouse, *TRAIN, "--pricing", "capacity_block")
    plans = [doc["chosen"], doc["fastest_within_budget"], *doc["frontier"]]
    for plan in plans:
        assert plan["provider"] == "aws" and plan["pricing_model"] == "capacity_block"
        assert (plan["max_instances"], plan["capacity_source"]) == (64.0, "published")
        assert "ec2-capacity-blocks" in plan["capacity_note"]
        assert plan["instances"] <= 64 and plan["max_hours"] == BLOCK_HOURS
        assert plan["wall_clock_hours"] <= BLOCK_HOURS
    # the fastest plan fills a whole block: 64 p5.48xlarge, 512 H100
    assert doc["fastest_within_budget"]["instances"] == 64
    assert doc["fastest_within_budget"]["instance_type"].startswith("p5")


def test_no_capacity_block_plan_runs_longer_than_a_block(demo_warehouse):
    # on 64 GPUs or fewer, 70B x 2T takes longer than 182 days: none of those is a candidate
    result = gpu_pricing.plan_train(
        params=70e9, tokens=2e12, pricing="capacity_block", warehouse=demo_warehouse
    )
    candidates = result.candidates
    assert candidates.height > 0
    assert (candidates["wall_clock_hours"] <= BLOCK_HOURS).all()
    assert candidates["gpus"].min() > 64

"""The Polars twins of the scalar formulas (used by the planner over whole frames) agree
with the scalar functions value for value."""

from __future__ import annotations

import polars as pl
import pytest

from models import breakeven, scaling, training


def test_spot_time_multiplier_expr_matches_the_scalar_and_is_null_when_the_run_never_ends():
    rates = [0.0, 0.2, 1.2125, 1.99, 2.0, 3.0]
    out = (
        pl.DataFrame({"p": rates})
        .select(breakeven.spot_time_multiplier_expr(0.05, 1.0, pl.col("p"), restart_hours=0.0))
        .to_series()
        .to_list()
    )
    for p, value in zip(rates, out, strict=True):
        if p * 0.5 >= 1:
            assert value is None
        else:
            assert value == pytest.approx(breakeven.spot_time_multiplier(0.05, 1.0, p))
    # 1.05 / (1 - 0.2 / 2) = 1.1667
    assert out[1] == pytest.approx(1.05 / 0.9)


def test_gpu_hours_expr_matches_the_scalar():
    frame = pl.DataFrame({"peak": [989.0, 312.0], "mfu": [0.45, 0.39]})
    out = (
        frame.select(
            training.gpu_hours_for_flops_expr(pl.lit(8.4e23), pl.col("peak"), pl.col("mfu"))
        )
        .to_series()
        .to_list()
    )
    assert out[0] == pytest.approx(training.gpu_hours_for_flops(8.4e23, 989, 0.45))
    assert out[0] == pytest.approx(524_286, rel=1e-5)
    assert out[1] == pytest.approx(training.gpu_hours_for_flops(8.4e23, 312, 0.39))


@pytest.mark.parametrize("method", scaling.ALLOCATIONS)
def test_allocated_params_expr_matches_allocate(method):
    budgets = [1e21, 5.76e23, 1e25]
    out = (
        pl.DataFrame({"c": budgets})
        .select(scaling.allocated_params_expr(pl.col("c"), method))
        .to_series()
        .to_list()
    )
    assert out == pytest.approx([scaling.allocate(c, method)["params"] for c in budgets])

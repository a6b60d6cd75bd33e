"""Memory fit has a Python statement (models/memory_fit.py, for the estimates and plans)
and a SQL one (the cost_per_token macro, for mart_cost_per_token). Both read their
constants from sql/seeds/seed_conventions.csv; this test proves they are the same rule by
evaluating both over every offer the macro returns, at several model sizes: the same GiB
required and the same fewest GPUs, row for row."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

from models import memory_fit


@pytest.mark.parametrize("params_b", [0.5, 7, 70, 405])
def test_the_sql_memory_fit_is_the_python_rule(demo_warehouse, params_b):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        sql = con.sql(
            f"""select gpu_memory_gib, training_memory_gib, min_gpus_training,
                       serving_memory_gib, min_gpus_serving
                from cost_per_token(params_b := {params_b})"""
        ).pl()
    finally:
        con.close()
    assert sql.height > 50
    params = params_b * 1e9
    python = sql.select(
        memory_fit.min_gpus_expr("training", params, pl.col("gpu_memory_gib")).alias("t"),
        memory_fit.min_gpus_expr("serving", params, pl.col("gpu_memory_gib")).alias("s"),
    )
    assert sql["min_gpus_training"].cast(pl.Int64).to_list() == python["t"].to_list()
    assert sql["min_gpus_serving"].cast(pl.Int64).to_list() == python["s"].to_list()
    for workload in ("training", "serving"):
        required = memory_fit.required_gib(workload, params)
        assert sql[f"{workload}_memory_gib"].to_list() == pytest.approx([required] * sql.height)

"""The benchmarks' yardsticks and peers stand on the command line's footing for bytecode
(benchmarks.bench_cli.yardstick_env): where Python writes none, `gpu-pricing` keeps its
own (gpu_pricing.cli._bytecode), so they get a bytecode folder too, rather than compiling
DuckDB's modules on every run and reading slower than they are. A refresh's own stage
timers are read from its `--json` and reported, with its CPU outside the parse stage."""

from __future__ import annotations

import json
import sys

import pytest

from benchmarks import bench_cli
from benchmarks.bench_cli import yardstick_env


def test_where_python_writes_no_bytecode_a_yardstick_gets_a_folder_of_its_own(
    monkeypatch, tmp_path
):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    env = yardstick_env(tmp_path)
    assert env["PYTHONPYCACHEPREFIX"] == str(tmp_path / "yardstick-pycache")
    assert "PYTHONDONTWRITEBYTECODE" not in env  # else Python reads the folder, never fills it
    assert env["PATH"]  # the rest of the environment kept


def test_elsewhere_the_environment_is_left_as_it_is(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert yardstick_env(tmp_path) is None
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "mine"))
    assert yardstick_env(tmp_path) is None


def test_the_yardstick_and_peers_run_in_their_own_environment_beside_other_trees(
    monkeypatch, tmp_path
):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    seen = {}
    monkeypatch.setattr(
        bench_cli, "run", lambda argv, env=None, cwd=None: seen.setdefault(argv[0], env) or {}
    )
    steps = bench_cli.refresh_steps(
        tmp_path / "s", "azure", tmp_path / "w.duckdb", ["duckdb-bare"],
        [("before", tmp_path / "before")], {"peer": ["peer-parse"]},
    )  # fmt: skip
    steps["DuckDB read_json"]()
    steps["peer"]()
    for name in ("duckdb-bare", "peer-parse"):
        assert seen[name] == yardstick_env(tmp_path), name  # not the last tree's


def test_a_refresh_s_stage_timers_are_reported_with_what_lies_outside_its_parse(capsys):
    printed = {"timings": {"land": 1.0, "parse_stage": 2.0, "views": 0.5},
               "cpu_timings": {"land": 1.5, "parse_stage": 3.0, "views": 0.5}}  # fmt: skip
    got = bench_cli.run([sys.executable, "-c", f"print({json.dumps(json.dumps(printed))})"])
    assert got["timings"] == printed["timings"] and got["cpu_timings"] == printed["cpu_timings"]
    # the process's own CPU less its parse stage's: what a bare scan's work does not include
    assert bench_cli.outside_parse(got) == pytest.approx(got["cpu_s"] - 3.0)
    bench_cli.report("t", {"refresh": [got, got]}, {})
    out = capsys.readouterr().out
    assert "refresh, by stage (s cpu, medians): land 1.50, parse_stage 3.00, views 0.50" in out
    # the process's CPU less its stages' (here a process that ran none of them)
    rest = got["cpu_s"] - 5.0
    assert f"refresh, starting and ending the process: {rest:.2f} s cpu (median)" in out


def test_a_command_that_prints_no_timers_has_none():
    got = bench_cli.run([sys.executable, "-c", "print('not json')"])
    assert "timings" not in got and "cpu_timings" not in got


def test_the_price_list_benchmark_s_items_are_priced_in_every_option_and_read_by_duckdb(
    monkeypatch, tmp_path
):
    """`aws-list`'s generated pages: each item priced on demand and in its 12 reservation
    options by the connector, and read once each by the DuckDB yardstick."""
    import subprocess

    import polars as pl

    from benchmarks import bench_aws
    from connectors.aws import parse
    from connectors.kit.page import pages_frame
    from connectors.kit.snapshot import read_provider

    monkeypatch.setattr(bench_aws, "OUT", tmp_path)
    snap = bench_aws.generate_price_list(150)
    offers = parse.parse(pages_frame(list(read_provider(snap, "aws"))))
    per_model = offers.group_by("pricing_model").len().sort("pricing_model").rows()
    assert per_model == [("on_demand", 150), ("reserved_1y", 900), ("reserved_3y", 900)]
    assert offers.filter(pl.col("price_usd_per_hour").is_null()).height == 0
    files = str(snap / "aws" / "price_list" / "*.json")
    out = subprocess.run(
        [sys.executable, "-c", bench_aws.LIST_DUCKDB_CHILD, files],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(out.stdout)["rows"] == 150

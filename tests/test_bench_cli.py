"""The benchmarks' yardsticks and peers stand on the command line's footing for bytecode
(benchmarks.bench_cli.yardstick_env): where Python writes none, `gpu-pricing` keeps its
own (gpu_pricing.cli._bytecode), so they get a bytecode folder too, rather than compiling
DuckDB's modules on every run and reading slower than they are."""

from __future__ import annotations

import sys

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

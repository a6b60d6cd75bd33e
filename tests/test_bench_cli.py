"""The benchmarks' yardsticks and peers stand on the command line's footing for bytecode
(benchmarks.bench_cli.yardstick_env): where Python writes none, `gpu-pricing` keeps its
own (gpu_pricing.cli._bytecode), so they get a bytecode folder too, rather than compiling
DuckDB's modules on every run and reading slower than they are."""

from __future__ import annotations

import sys

from benchmarks.bench_cli import yardstick_env


def test_where_python_writes_no_bytecode_a_yardstick_gets_a_folder_of_its_own(
    monkeypatch, tmp_path
):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    env = yardstick_env(tmp_path)
    assert env["PYTHONPYCACHEPREFIX"] == str(tmp_path / "yardstick-pycache")
    assert env["PATH"]  # the rest of the environment kept


def test_elsewhere_the_environment_is_left_as_it_is(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert yardstick_env(tmp_path) is None
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "mine"))
    assert yardstick_env(tmp_path) is None

"""scripts/compare_marts.py, as run from a shell: the before/after check of a restructuring.
The comparisons run the script in a child process (exit codes 0 and 1 as a shell sees them);
the argument check runs its `main()` in this process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from scripts import compare_marts

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "compare_marts.py"


def compare(before: Path, after: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(before), str(after), *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )


@pytest.fixture
def pair(demo_warehouse, tmp_path) -> tuple[Path, Path]:
    before, after = tmp_path / "before.duckdb", tmp_path / "after.duckdb"
    shutil.copy(demo_warehouse, before)
    shutil.copy(demo_warehouse, after)
    return before, after


@pytest.mark.slow  # a child process comparing every relation
def test_the_same_refresh_compares_identical_relation_by_relation(pair):
    result = compare(*pair)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for relation in ("mart_cheapest_gpu_hour", "mart_cost_per_token", "fct_gpu_prices",
                     "dim_gpus", "alert_rates_current", "cost_per_token()",
                     "breakeven_onprem()", "spot_breakeven()"):
        assert any(line.startswith(f"same    {relation}:") for line in lines), relation
    assert "DIFFERS" not in result.stdout
    assert lines[-1].endswith("relations identical")


@pytest.mark.slow  # a child process comparing every relation
def test_a_changed_price_in_a_mart_is_reported(pair):
    before, after = pair
    with duckdb.connect(str(after)) as con:
        con.execute(
            """update mart_cheapest_gpu_hour set price_usd_per_gpu_hour = price_usd_per_gpu_hour + 0.01
               where gpu_name = 'H100' and pricing_model = 'on_demand'"""
        )
    result = compare(before, after)
    assert result.returncode == 1
    assert "DIFFERS mart_cheapest_gpu_hour:" in result.stdout
    assert "same    mart_cost_per_token:" in result.stdout


@pytest.mark.slow  # a child process comparing every relation
def test_a_changed_convention_shows_in_the_marts_and_the_macros_that_read_it(pair):
    before, after = pair
    with duckdb.connect(str(after)) as con:
        con.execute("update seed_conventions set hours_per_month = 730")
    result = compare(before, after)
    assert result.returncode == 1
    assert "DIFFERS mart_breakeven_onprem:" in result.stdout
    assert "DIFFERS breakeven_onprem():" in result.stdout
    assert "same    mart_cost_per_token:" in result.stdout


def test_a_missing_file_is_one_line_and_exit_2(demo_warehouse, tmp_path, capsys):
    assert compare_marts.main([str(demo_warehouse), str(tmp_path / "nope.duckdb")]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"compare_marts: no warehouse file at {tmp_path / 'nope.duckdb'}"]

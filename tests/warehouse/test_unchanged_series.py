"""A provider with a time series (AWS spot price history) whose pages and parsing code are
those its staged rows came from is not re-parsed, and its series' tables are not even
resolved (they are declared with Polars' types: an unchanged refresh loads no Polars); points
stored before they carried a provenance are still stated by the next refresh that parses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests._cli import cli

ROOT = Path(__file__).resolve().parents[2]
AGAIN = """
import contextlib, io, json, sys
from gpu_pricing.cli import main
sys.argv = ["gpu-pricing", "refresh", "--snapshot", "demo", *sys.argv[2:],
            "--warehouse", sys.argv[1], "--json"]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main()
    except SystemExit as exc:
        code = exc.code
doc = json.loads(out.getvalue())
print(json.dumps({"code": code, "polars": "polars" in sys.modules,
                  "reused": all(p["unchanged"] == p["fetched"] for p in doc["providers"])}))
"""


@pytest.mark.slow  # refreshes, one in a child process
@pytest.mark.parametrize("providers", [["--providers", "aws"], []], ids=["aws", "demo"])
def test_an_unchanged_series_provider_is_not_parsed_and_loads_no_polars(tmp_path, providers):
    """AWS alone, and the whole demo (whose other providers a changed refresh parses
    together, warehouse.ahead)."""
    warehouse = tmp_path / "w.duckdb"
    assert cli("refresh", "--snapshot", "demo", *providers, "--warehouse",
               warehouse).exit_code == 0  # fmt: skip
    done = subprocess.run([sys.executable, "-c", AGAIN, str(warehouse), *providers], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "code": 0, "polars": False, "reused": True
    }


@pytest.mark.slow  # refreshes
def test_points_stored_unstated_are_stated_by_the_next_refresh_that_parses(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    assert cli("refresh", "--snapshot", "demo", "--providers", "aws", "--warehouse",
               warehouse).exit_code == 0  # fmt: skip
    con = duckdb.connect(str(warehouse))
    stated = con.execute(
        "SELECT count(*) FILTER (WHERE provenance = 'illustrative') FROM stg_aws__spot_prices"
    ).fetchone()[0]
    assert stated > 0
    # as a warehouse written before points carried a provenance: its points unstated, its
    # staged rows made by other code
    con.execute("UPDATE stg_aws__spot_prices SET provenance = NULL")
    con.execute("UPDATE _staged SET code_digest = 'earlier' WHERE connector = 'aws'")
    con.close()
    assert cli("refresh", "--snapshot", "demo", "--providers", "aws", "--warehouse",
               warehouse).exit_code == 0  # fmt: skip
    con = duckdb.connect(str(warehouse), read_only=True)
    got = con.execute(
        """SELECT count(*) FILTER (WHERE provenance IS NULL),
                  count(*) FILTER (WHERE provenance = 'illustrative')
           FROM stg_aws__spot_prices"""
    ).fetchone()
    con.close()
    assert got == (0, stated)

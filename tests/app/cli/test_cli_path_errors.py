"""Paths a user gets wrong: a directory as --warehouse or --out, a directory the refresh
cannot write in. Each is one line on stderr naming the path, exit 2 (usage or input
error), and nothing written; and the Python API's default warehouse does not depend on the
working directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests._cli import cli
from warehouse import db


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "unexpected" not in lines[0] and "Traceback" not in text
    return lines[0]


@pytest.mark.parametrize("command", [["refresh", "--snapshot", "demo"], ["rates"], ["report"]])
def test_a_directory_as_the_warehouse_is_one_line_and_exit_2(tmp_path, command):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    result = cli(*command, "--warehouse", folder)
    assert result.exit_code == 2
    line = one_line(result.stderr)
    assert f"warehouse {folder} is a directory" in line
    assert str(folder / "gpu_pricing.duckdb") in line  # what to give instead
    assert list(folder.iterdir()) == []


@pytest.fixture
def unwritable_dir(tmp_path) -> Path:
    """A directory this process cannot create files in. root passes every permission
    check, so as root: /sys (the kernel refuses new files there)."""
    if os.geteuid() == 0:
        yield Path("/sys")
        return
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    yield folder
    folder.chmod(stat.S_IRWXU)


@pytest.mark.slow  # as root the refresh gets as far as its lock file (~8 s)
def test_a_warehouse_in_a_directory_the_refresh_cannot_write_is_one_line_and_exit_2(
    unwritable_dir,
):
    target = unwritable_dir / "gpu_pricing.duckdb"
    result = cli("refresh", "--snapshot", "demo", "--providers", "oci", "--warehouse", target)
    assert result.exit_code == 2
    line = one_line(result.stderr)
    assert str(unwritable_dir) in line and "permission denied" in line
    assert not target.exists()


@pytest.mark.slow  # renders the report (~8 s)
def test_a_report_into_a_directory_or_an_unwritable_place_is_one_line_and_exit_2(
    demo_warehouse, tmp_path, unwritable_dir
):
    result = cli("report", "--warehouse", demo_warehouse, "--out", tmp_path)
    assert result.exit_code == 2
    assert f"cannot write {tmp_path}" in one_line(result.stderr)
    result = cli("report", "--warehouse", demo_warehouse, "--out", unwritable_dir / "r.html")
    assert result.exit_code == 2
    assert "permission denied" in one_line(result.stderr)


def test_the_python_api_finds_the_project_warehouse_from_any_directory(tmp_path, monkeypatch):
    import gpu_pricing

    monkeypatch.delenv(db.ENV_VAR, raising=False)
    monkeypatch.delenv("GPU_PRICING_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)  # a notebook somewhere else
    repo = Path(__file__).resolve().parents[3]
    assert gpu_pricing.warehouse_path() == repo / "warehouse" / "gpu_pricing.duckdb"
    # a warehouse under the working directory (a refresh run there) is read first
    (tmp_path / "warehouse").mkdir()
    (tmp_path / "warehouse" / "gpu_pricing.duckdb").write_bytes(b"")
    assert gpu_pricing.warehouse_path() == tmp_path / "warehouse" / "gpu_pricing.duckdb"
    monkeypatch.setenv(db.ENV_VAR, str(tmp_path / "mine.duckdb"))
    assert gpu_pricing.warehouse_path() == tmp_path / "mine.duckdb"
    assert gpu_pricing.warehouse_path(tmp_path / "x.duckdb") == tmp_path / "x.duckdb"


def test_outside_a_checkout_the_api_default_is_the_user_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv(db.ENV_VAR, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(db, "PROJECT_ROOT", tmp_path / "site-packages")  # no pyproject.toml
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert db.project_path() == tmp_path / "data" / "gpu-pricing" / "gpu_pricing.duckdb"


@pytest.mark.slow  # a child process
def test_output_piped_into_a_reader_that_stops_early_ends_quietly(demo_warehouse, tmp_path):
    """`gpu-pricing rates ... | head -1`: no "unexpected BrokenPipeError" line."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))}
    env["PREFECT_HOME"] = str(tmp_path / "ph")
    proc = subprocess.Popen(
        [
            *(str(Path(sys.executable).parent / "gpu-pricing"), "rates", "--limit", "100000"),
            *("--include-illustrative", "--warehouse", str(demo_warehouse)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does; the rest (far more than a pipe holds) has nowhere to go
    stderr = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "unexpected" not in stderr and "Traceback" not in stderr, stderr

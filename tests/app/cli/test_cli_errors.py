"""User-caused failures end with one line on stderr naming the file or value, a non-zero
exit (2: usage or input error) and the published warehouse untouched; `--debug` adds the
traceback. The exit code and the message are checked in process (typer's CliRunner on
`gpu_pricing.cli.app`); what only a real process shows (the traceback with `--debug` and
none without, nothing else on stderr, a missing Prefect server) runs the installed command
in a child process, as the user runs it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from connectors.kit.snapshot import DEMO_DIR
from tests._cli import cli

# slow: a child process per case, or a whole demo refresh in process
pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """No Prefect API configured (a fresh machine), Prefect's home in tmp."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))}
    e["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    return e


def gpu_pricing(env: dict, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "gpu-pricing"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def in_process(monkeypatch) -> None:
    """The command in this process, with no GPU_PRICING_ setting of the environment."""
    for name in [n for n in os.environ if n.startswith("GPU_PRICING_")]:
        monkeypatch.delenv(name)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def warehouse(tmp_path, demo_warehouse) -> Path:
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    return path


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_a_read_write_connection_elsewhere_is_one_line_and_exit_2(in_process, warehouse):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); "
            "print('open', flush=True); time.sleep(120)",
            str(warehouse),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "open"
        before = digest(warehouse)
        done = cli("refresh", "--snapshot", "demo", "--providers", "gcp", "--warehouse", warehouse)
        line = one_line(done.stderr)
        assert done.exit_code == 2
        assert str(warehouse) in line and "open read-write in another process" in line
        assert f"PID {holder.pid}" in line
        assert digest(warehouse) == before  # nothing replaced under the analyst's feet
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize(
    ("keep", "debug_too"),
    [
        (lambda size: size // 2, True),  # fails to open
        # opens; a data block past the end fails mid-refresh (after a whole demo refresh's
        # work, so --debug, the same line wherever the failure is, is checked on `half`)
        (lambda size: size - 4096, False),
    ],
    ids=["half", "last-block"],
)
def test_a_truncated_warehouse_is_one_line_and_exit_2_and_left_as_it_is(
    env, in_process, warehouse, keep, debug_too
):
    with warehouse.open("r+b") as fh:
        fh.truncate(keep(warehouse.stat().st_size))
    before = digest(warehouse)
    args = ["refresh", "--snapshot", "demo", "--warehouse", str(warehouse)]
    if debug_too:  # the child process: its whole stderr, then with --debug
        done = gpu_pricing(env, *args)
        code = done.returncode
    else:  # a whole demo refresh's work before the failure: in process
        done = cli(*args)
        code = done.exit_code
    line = one_line(done.stderr)
    assert code == 2
    assert str(warehouse) in line and "not a readable DuckDB file" in line
    assert digest(warehouse) == before
    assert not warehouse.with_name(warehouse.name + ".next").exists()

    if not debug_too:
        return
    # --debug: the same line, with the traceback before it
    debug = gpu_pricing(
        env, "--debug", "refresh", "--snapshot", "demo", "--warehouse", str(warehouse)
    )
    assert debug.returncode == 2
    assert "Traceback" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1].startswith(
        f"gpu-pricing: warehouse {warehouse} is not a readable DuckDB file"
    )


def test_a_snapshot_page_that_is_not_json_is_one_line_and_exit_2(in_process, warehouse, tmp_path):
    snap = tmp_path / "snap"
    shutil.copytree(DEMO_DIR / "azure", snap / "azure")
    page = sorted((snap / "azure" / "retail_prices").glob("*.json"))[1]
    page.write_text('{"fetched_at": "2026-11-20T02:00:00Z", "request": {}, "body": {"Items": [')
    before = digest(warehouse)
    done = cli("refresh", "--snapshot", snap, "--warehouse", warehouse)
    line = one_line(done.stderr)
    assert done.exit_code == 2
    assert str(page) in line and "not valid JSON" in line
    assert digest(warehouse) == before  # nothing landed from a half-readable snapshot


def test_version_prints_the_package_version(in_process):
    from importlib.metadata import version

    done = cli("--version")
    assert done.exit_code == 0 and done.stdout.strip() == f"gpu-pricing {version('gpu-pricing')}"


def test_serve_without_a_prefect_server_says_how_to_start_one(env, tmp_path):
    done = gpu_pricing(
        env, "serve", "--snapshot", "demo", "--warehouse", str(tmp_path / "w.duckdb"), timeout=90
    )
    line = one_line(done.stderr)
    assert done.returncode == 2
    assert "`uv run gpu-pricing server`" in line and "PREFECT_API_URL" in line


def test_refresh_json_on_success_is_still_one_document(env, tmp_path):
    done = gpu_pricing(
        env, "refresh", "--snapshot", "demo", "--providers", "oci", "--json",
        "--warehouse", str(tmp_path / "w.duckdb"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["providers"][0]["provider"] == "oci"
    assert done.stderr == ""

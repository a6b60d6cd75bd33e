"""Ctrl-C during a refresh: one line on stderr, exit 130, the published file as it was, and
the refresh's working copy (`.next`) removed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests._warehouse import copy_warehouse

pytestmark = pytest.mark.slow


def test_sigint_during_a_refresh_prints_one_line_exits_130_and_removes_next(
    demo_warehouse, tmp_path
):
    wh = copy_warehouse(demo_warehouse, tmp_path / "w.duckdb")
    before = wh.read_bytes()
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect")}
    env.pop("PREFECT_API_URL", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gpu_pricing.cli",
            "refresh",
            "--warehouse",
            str(wh),
            "--snapshot",
            "demo",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    nxt = tmp_path / "w.duckdb.next"
    deadline = time.monotonic() + 120
    while not nxt.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert nxt.exists(), "the refresh never started its working copy"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], stderr
    assert not nxt.exists() and not (tmp_path / "w.duckdb.next.wal").exists()
    assert wh.read_bytes() == before

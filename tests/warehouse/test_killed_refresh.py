"""kill -9 at several points of a refresh (while it copies and lands, while it parses and
stages, late in the run): the published file is whole whatever the moment, the raw store
verifies clean (`gpu-pricing raw verify`), and the next refresh passes."""

from __future__ import annotations

import os
import signal
import time

import duckdb
import pytest

from tests._cli import cli
from tests.warehouse.test_publish_atomic import big_snapshot, run_refresh

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill")
    small, big = root / "small", root / "big"
    big_snapshot(small, pages=2, items_per_page=10)
    big_snapshot(big, pages=300, items_per_page=500)
    return small, big


@pytest.mark.parametrize("after", [0.0, 1.5, 4.0])
def test_a_kill_at_any_point_leaves_a_whole_file_and_the_next_refresh_passes(
    after, snapshots, tmp_path
):
    small, big = snapshots
    warehouse = tmp_path / "w.duckdb"
    assert run_refresh(warehouse, small).wait(120) == 0

    proc = run_refresh(warehouse, big)
    nxt = warehouse.with_name(warehouse.name + ".next")
    deadline = time.monotonic() + 60
    while not nxt.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(after)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)

    con = duckdb.connect(str(warehouse), read_only=True)  # whole: opens and reads
    (runs,) = con.execute("SELECT count(*) FROM _runs WHERE status = 'ok'").fetchone()
    assert runs in (1, 2)
    assert con.execute("SELECT count(*) FROM mart_gpu_offers_current").fetchone()[0] > 0
    con.close()
    assert cli("raw", "verify", "--warehouse", warehouse).exit_code == 0

    assert run_refresh(warehouse, small).wait(180) == 0
    assert not nxt.exists()
    assert cli("raw", "verify", "--warehouse", warehouse).exit_code == 0

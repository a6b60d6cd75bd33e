"""A full disk during a refresh: one line naming the device, exit 3 (nothing landed), the
published file as it was, and no partial `.next` left holding the little space there is;
once space is freed the next refresh passes. Run on a small tmpfs (needs root to mount)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests._cli import cli
from tests._warehouse import copy_warehouse

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount)])
    if done.returncode != 0:
        pytest.skip("this container may not mount a tmpfs (no CAP_SYS_ADMIN)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk, leave: int):
    """Fill the disk but `leave` bytes beyond the warehouse file's size (less than its
    size when negative: then its copy cannot be made)."""
    free = shutil.disk_usage(disk).free
    size = (disk / "w.duckdb").stat().st_size
    with (disk / "fill").open("wb") as fh:
        os.posix_fallocate(fh.fileno(), 0, max(1, free - size - leave))


@pytest.mark.parametrize(
    "leave",
    [-1_000_000, 100_000],
    ids=["the copy fails", "the work on the copy fails"],
)
def test_a_full_disk_fails_in_one_line_with_exit_3_and_leaves_nothing(
    small_disk, demo_warehouse, leave, monkeypatch, tmp_path
):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    wh = copy_warehouse(demo_warehouse, small_disk / "w.duckdb")
    before = wh.read_bytes()
    _fill(small_disk, leave)

    result = cli("refresh", "--warehouse", wh, "--snapshot", "demo")
    assert result.exit_code == 3, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "no space left" in lines[0] and "nothing was published" in lines[0]
    assert wh.read_bytes() == before
    assert not list(small_disk.glob("*.next*")), "a partial .next holds the space"
    assert not list((small_disk / "w.duckdb.raw").rglob("*.tmp"))

    (small_disk / "fill").unlink()
    assert cli("refresh", "--warehouse", wh, "--snapshot", "demo").exit_code == 0

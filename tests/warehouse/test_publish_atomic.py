"""A refresh killed midway leaves the published warehouse exactly as it was."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import zstandard

from samples.azure import azure_retail_item, azure_retail_page
from warehouse.rawstore import RawStore

SCRIPT = """
import sys
from pathlib import Path
from connectors.kit import snapshot as kit_snapshot
from flows import pipeline
pages = list(kit_snapshot.read_provider(Path(sys.argv[2]), "azure"))
pipeline.load_and_publish(Path(sys.argv[1]), {"azure": pages}, source="kill-test")
"""


def big_snapshot(root: Path, pages: int, items_per_page: int) -> None:
    """Enough real-shape pages that a refresh takes seconds, so a kill lands midway."""
    folder = root / "azure" / "retail_prices"
    folder.mkdir(parents=True)
    for n in range(pages):
        items = [
            azure_retail_item(
                arm_sku="Standard_NC24ads_A100_v4",
                display="NC24ads A100 v4",
                series="NCadsA100_v4",
                region=f"region{n:03d}-{i:03d}",
                location="X",
                price=3.0 + i / 1e4,
            )
            for i in range(items_per_page)
        ]
        doc = {
            "fetched_at": "2026-11-20T02:00:00Z",
            "request": {"region": f"region{n:03d}"},
            "body": azure_retail_page(items, None),
        }
        (folder / f"p{n:04d}.json").write_text(json.dumps(doc))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_refresh(warehouse: Path, snapshot: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(warehouse), str(snapshot)],
        cwd=Path(__file__).resolve().parents[2],
    )


@pytest.mark.slow  # refreshes in child processes, one killed midway
def test_a_refresh_killed_midway_leaves_the_published_warehouse_unchanged(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    small, big = tmp_path / "small", tmp_path / "big"
    big_snapshot(small, pages=2, items_per_page=10)
    big_snapshot(big, pages=400, items_per_page=500)
    assert run_refresh(warehouse, small).wait(120) == 0
    published = sha(warehouse)

    proc = run_refresh(warehouse, big)
    nxt = warehouse.with_name(warehouse.name + ".next")
    deadline = time.monotonic() + 60
    while not nxt.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert nxt.exists(), "the refresh never started building"
    time.sleep(1.0)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(30) == -signal.SIGKILL
    assert nxt.exists(), "killed too late: the refresh had already published"

    assert sha(warehouse) == published
    con = duckdb.connect(str(warehouse), read_only=True)
    assert con.execute("SELECT count(*) FROM mart_gpu_offers_current").fetchone()[0] == 20
    con.close()

    # the raw store holds whole objects only (each written to a temp name, then renamed)
    store = RawStore.beside(warehouse)
    for obj in store.iter_objects():
        zstandard.ZstdDecompressor().decompress(obj.read_bytes())

    # the next refresh discards the stale .next (and temp files) and completes
    assert run_refresh(warehouse, small).wait(120) == 0
    assert not nxt.exists()
    assert not list(store.objects.glob("*/.*.tmp"))
    con = duckdb.connect(str(warehouse), read_only=True)
    assert con.execute("SELECT count(*) FROM _runs WHERE status = 'ok'").fetchone()[0] == 2
    con.close()

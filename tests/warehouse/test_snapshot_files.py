"""A replay that finds a snapshot file as it was when it was last landed takes the page's
sha256 from its record instead of reading the file (warehouse.snapshot_files); any doubt
(an edit, a stat that moved, a file changed close to the moment it was read, a credential
value held, the full check) means the file is read and hashed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from common import redact
from connectors.kit import snapshot as kit_snapshot
from tests._cli import cli
from tests.warehouse.test_publish_atomic import big_snapshot
from warehouse import snapshot_files
from warehouse.rawstore import RawStore

PAGES = 3
LEDGER = """SELECT l.scope, p.seq, p.sha256, p.fetched_at, p.request, p.source_url, p.bytes, p.format,
                  p.provenance
           FROM _load_pages p JOIN _loads l USING (load_id)
           WHERE l.run_id = (SELECT max(run_id) FROM _runs) ORDER BY l.scope, p.seq"""


@pytest.fixture
def reads(monkeypatch):
    """The snapshot files read from disk (the reader itself, counted)."""
    got: list[str] = []
    real = kit_snapshot.read_page

    def counted(provider, endpoint, path):
        got.append(Path(path).name)
        return real(provider, endpoint, path)

    monkeypatch.setattr(kit_snapshot, "read_page", counted)
    return got


@pytest.fixture(autouse=True)
def no_credentials(monkeypatch):
    """A process holding no credential value (another test of the run may have registered
    one: then no record is used or made, as tested below)."""
    monkeypatch.setattr(redact, "_registered", set())
    for name in list(os.environ):
        if name in redact._env_names or redact._SECRET_NAME.search(name):
            monkeypatch.delenv(name)
    assert not redact.credential_values()


@pytest.fixture
def settled(monkeypatch):
    """Files written a moment ago count as settled (the racy margin is tested on its own)."""
    monkeypatch.setattr(snapshot_files, "RACY_MARGIN_NS", 0)


def refresh(warehouse: Path, snap: Path, *more: str) -> dict:
    result = cli("refresh", "--snapshot", snap, "--warehouse", warehouse, "--json", *more)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def ledger(warehouse: Path) -> list[tuple]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return con.execute(LEDGER).fetchall()
    finally:
        con.close()


def records(warehouse: Path) -> dict:
    """The records of the one snapshot folder these tests replay ({} when none is made)."""
    paths = list((RawStore.beside(warehouse).root / snapshot_files.FOLDER).glob("*.json"))
    assert len(paths) <= 1, paths
    return json.loads(paths[0].read_text())["files"] if paths else {}


def unchanged(doc: dict) -> int:
    (azure,) = [p for p in doc["providers"] if p["provider"] == "azure"]
    return azure["unchanged"]


@pytest.fixture
def snap(tmp_path):
    root = tmp_path / "snap"
    big_snapshot(root, pages=PAGES, items_per_page=5)
    return root


@pytest.mark.slow  # several refreshes
def test_an_unchanged_replay_reads_no_file_and_lands_the_same_ledger(
    snap, tmp_path, reads, settled
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snap)
    assert len(reads) == PAGES and len(records(warehouse)) == PAGES
    first = ledger(warehouse)

    reads.clear()
    again = refresh(warehouse, snap)
    assert reads == []
    assert unchanged(again) == PAGES
    assert ledger(warehouse) == first

    # the full check reads, hashes and compares every file: the way to force it
    checked = refresh(warehouse, snap, "--full-check")
    assert len(reads) == PAGES and unchanged(checked) == PAGES
    assert ledger(warehouse) == first


@pytest.mark.slow  # several refreshes
def test_an_edit_that_keeps_size_and_mtime_is_read_again_by_its_ctime(
    snap, tmp_path, reads, settled
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snap)
    page = snap / "azure" / "retail_prices" / "p0001.json"
    before = page.stat()
    text = page.read_text()
    edited = text.replace('"retailPrice": 3.0', '"retailPrice": 4.0', 1)
    assert edited != text and len(edited) == len(text)
    page.write_text(edited)
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime restored
    assert (page.stat().st_size, page.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)

    reads.clear()
    doc = refresh(warehouse, snap)
    assert reads == ["p0001.json"]
    assert unchanged(doc) == PAGES - 1
    con = duckdb.connect(str(warehouse), read_only=True)
    (price,) = con.execute(
        "SELECT price_usd_per_hour FROM mart_gpu_offers_current WHERE region = 'region001-000'"
    ).fetchone()
    con.close()
    assert price == 4.0


@pytest.mark.slow  # several refreshes
def test_a_changed_file_is_landed_again(snap, tmp_path, reads, settled):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snap)
    page = snap / "azure" / "retail_prices" / "p0002.json"
    page.write_text(page.read_text().replace('"retailPrice": 3.0', '"retailPrice": 13.0'))
    reads.clear()
    doc = refresh(warehouse, snap)
    assert reads == ["p0002.json"] and unchanged(doc) == PAGES - 1
    new_sha = ledger(warehouse)[2][2]
    assert records(warehouse)["azure/retail_prices/p0002.json"]["sha256"] == new_sha
    assert RawStore.beside(warehouse).has(new_sha)


@pytest.mark.slow  # several refreshes
def test_a_file_not_settled_when_read_is_hashed_again(snap, tmp_path, reads, settled):
    """git's racy case: a file whose mtime is not safely older than the moment it was read
    could change again within the same timestamp, so no record stands for it."""
    warehouse = tmp_path / "w.duckdb"
    page = snap / "azure" / "retail_prices" / "p0000.json"
    ahead = time.time_ns() + 3600 * 10**9  # stamped later than the read (a skewed clock)
    os.utime(page, ns=(ahead, ahead))
    refresh(warehouse, snap)
    assert "azure/retail_prices/p0000.json" not in records(warehouse)
    reads.clear()
    refresh(warehouse, snap)
    assert reads == ["p0000.json"]


@pytest.mark.slow  # a refresh
def test_files_written_within_the_margin_of_their_read_are_not_recorded(snap, tmp_path, reads):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snap)  # the files were written a moment ago
    assert records(warehouse) == {}
    reads.clear()
    refresh(warehouse, snap)
    assert len(reads) == PAGES


@pytest.mark.slow  # several refreshes
def test_no_record_is_used_while_a_credential_value_is_held(
    snap, tmp_path, reads, settled, monkeypatch
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snap)
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "k-0123456789abcdef")
    reads.clear()
    refresh(warehouse, snap)
    assert len(reads) == PAGES


@pytest.mark.slow  # several refreshes
def test_a_missing_object_is_written_again_from_the_file(snap, tmp_path, reads, settled):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snap)
    sha = records(warehouse)["azure/retail_prices/p0001.json"]["sha256"]
    store = RawStore.beside(warehouse)
    store.path(sha).write_bytes(store.path(sha).read_bytes()[:-5])  # cut
    reads.clear()
    refresh(warehouse, snap)
    assert reads == ["p0001.json"]
    assert cli("raw", "verify", "--warehouse", warehouse).exit_code == 0


KILLED = """
import sys
from gpu_pricing.cli import main
sys.argv = ["gpu-pricing", "refresh", "--snapshot", sys.argv[2], "--warehouse", sys.argv[1]]
main()
"""


@pytest.mark.slow  # refreshes in child processes, one killed right after its landing
def test_a_refresh_killed_right_after_landing_leaves_records_the_next_one_can_use(
    tmp_path, reads
):
    snap, warehouse, reference = tmp_path / "snap", tmp_path / "w.duckdb", tmp_path / "r.duckdb"
    big_snapshot(snap, pages=200, items_per_page=500)
    time.sleep(snapshot_files.RACY_MARGIN_NS / 1e9 + 0.2)  # settled: the records are made
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(warehouse), str(snap)],
        cwd=Path(__file__).resolve().parents[2], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    folder = RawStore.beside(warehouse).root / snapshot_files.FOLDER
    deadline = time.monotonic() + 120
    while not any(folder.glob("*.json")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, "the refresh ended before it was killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    assert len(records(warehouse)) == 200
    assert not warehouse.exists()  # killed before its first publish

    assert cli("refresh", "--snapshot", snap, "--warehouse", warehouse).exit_code == 0
    assert reads == []  # the killed refresh's records stood for every file
    assert cli("refresh", "--snapshot", snap, "--warehouse", reference).exit_code == 0
    assert cli("raw", "verify", "--warehouse", warehouse).exit_code == 0
    marts = "SELECT * EXCLUDE (load_id, first_seen_at, effective_at) FROM mart_gpu_offers_current ORDER BY ALL"
    got = [duckdb.connect(str(w), read_only=True).execute(marts).fetchall()
           for w in (warehouse, reference)]  # fmt: skip
    assert got[0] == got[1] and len(got[0]) == 200 * 500

"""A build drops the stored marts it is about to rebuild and checkpoints first
(`warehouse.db.drop_to_rewrite`), so their blocks hold the new marts instead of the file
keeping both copies; the published file is untouched until the build ends, whatever
happens after the drop."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from flows import pipeline
from samples.azure import azure_retail_item, azure_retail_page
from warehouse import db, history, materialise

MARTS = set(materialise.materialized())
ROWS = 300_000  # staged rows a night: a few MB, enough blocks to see whole tables
ROOT = Path(__file__).resolve().parents[2]


def snapshot(root: Path, price: float, items: int = 60) -> Path:
    """Azure pages in the real shape; `price` moves every item's price."""
    folder = root / "azure" / "retail_prices"
    folder.mkdir(parents=True)
    page = [
        azure_retail_item(
            arm_sku="Standard_NC24ads_A100_v4",
            display="NC24ads A100 v4",
            series="NCadsA100_v4",
            region=f"region{i // 2:03d}",
            location="X",
            price=price + i / 1e3,
            **({"suffix": " Spot"} if i % 2 else {}),
        )
        for i in range(items)
    ]
    doc = {
        "fetched_at": "2026-11-20T02:00:00Z",
        "request": {"region": "all"},
        "body": azure_retail_page(page, None),
    }
    (folder / "p0001.json").write_text(json.dumps(doc))
    return root


def refresh(warehouse: Path, snap: Path) -> pipeline.RunSummary:
    return pipeline.load_and_publish(
        warehouse, {"azure": pipeline.SnapshotPages(snap, "azure")}, source="room-test"
    )


def marts(warehouse: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return {m: sorted(map(repr, con.execute(f"SELECT * FROM {m}").fetchall())) for m in MARTS}
    finally:
        con.close()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_build_that_fails_after_dropping_the_marts_leaves_the_published_file_as_it_was(
    tmp_path, monkeypatch
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    published, rows = sha(warehouse), marts(warehouse)
    assert rows["mart_gpu_offers_current"]

    dropped: list[str] = []

    def drop_then_fail(con, tables):
        dropped.extend(db.drop_to_rewrite(con, tables))
        # dropped and checkpointed in the build's copy
        left = {r[0] for r in db.run(con, "SELECT table_name FROM duckdb_tables()")}
        assert not left & MARTS
        raise RuntimeError("the build fails after its marts were dropped")

    monkeypatch.setattr(materialise, "drop_to_rewrite", drop_then_fail)
    with pytest.raises(RuntimeError, match="after its marts were dropped"):
        refresh(warehouse, snapshot(tmp_path / "b", 4.0))
    assert set(dropped) == MARTS  # the refresh's own build dropped every stored mart
    assert sha(warehouse) == published
    assert marts(warehouse) == rows
    assert not warehouse.with_name(warehouse.name + ".next").exists()

    monkeypatch.undo()  # the next build drops, checkpoints, rebuilds and publishes
    refresh(warehouse, snapshot(tmp_path / "c", 4.0))
    after = marts(warehouse)
    assert after["mart_gpu_offers_current"] != rows["mart_gpu_offers_current"]


# a child refresh of sys.argv[2] into sys.argv[1], with `patch` (a function of the build
# replaced by one that kills the process) applied first
_KILLED = """
import os, signal, sys
from pathlib import Path
from flows import pipeline
{patch}
pipeline.load_and_publish(Path(sys.argv[1]), {{"azure": pipeline.SnapshotPages(Path(sys.argv[2]), "azure")}},
                          source="killed-test")
"""


def refresh_killed(patch: str, warehouse: Path, snap: Path) -> None:
    """A refresh of `snap` into `warehouse` in a child process that `patch` kills mid-build:
    it must end by SIGKILL."""
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED.format(patch=patch), str(warehouse), str(snap)],
        cwd=ROOT,
        check=False,
        capture_output=True,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]


DROP_THEN_DIE = """
from warehouse import db, history, materialise

def drop_then_die(con, tables):
    db.drop_to_rewrite(con, tables)
    os.kill(os.getpid(), signal.SIGKILL)

materialise.drop_to_rewrite = drop_then_die
"""


@pytest.mark.slow  # a refresh in a child process, killed
def test_a_kill_after_the_marts_are_dropped_leaves_the_published_file_and_the_next_build_passes(
    tmp_path,
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    published, rows = sha(warehouse), marts(warehouse)
    refresh_killed(DROP_THEN_DIE, warehouse, snapshot(tmp_path / "b", 4.0))
    assert warehouse.with_name(warehouse.name + ".next").exists()  # killed mid-build
    assert sha(warehouse) == published
    assert marts(warehouse) == rows
    refresh(warehouse, snapshot(tmp_path / "c", 4.0))
    assert marts(warehouse) != rows
    assert not warehouse.with_name(warehouse.name + ".next").exists()


def _stage(con: duckdb.DuckDBPyConnection, night: int) -> None:
    """A night's staged rows, replacing the last night's."""
    with db.transaction(con):
        db.run(con, "DELETE FROM stg")
        db.run(
            con,
            "INSERT INTO stg SELECT i, hash(i, $n) % 100000 / 100, 'offer ' || hash(i, $n) % 997"
            " FROM range($rows) t(i)",
            {"n": night, "rows": ROWS},
        )


def _night(con: duckdb.DuckDBPyConnection, night: int, *, drop_first: bool) -> None:
    """A build's writes in miniature: staged rows replaced, a few history rows added, a
    stored mart rebuilt from the staged rows."""
    _stage(con, night)
    db.run(con, "INSERT INTO hist SELECT i, $n FROM range(2000) t(i)", {"n": night})
    if drop_first:
        db.drop_to_rewrite(con, ["mart"])
    db.run(con, "CREATE OR REPLACE TABLE mart AS SELECT id, price * 2 AS p, name FROM stg")


def _nights(path: Path, nights: int, *, drop_first: bool) -> list[tuple[int, int]]:
    """The published file's size and free bytes after each of `nights` builds."""
    with db.building(path) as con:
        db.run(con, "CREATE TABLE stg (id BIGINT, price DOUBLE, name VARCHAR)")
        db.run(con, "CREATE TABLE hist (id BIGINT, night INTEGER)")
    sizes = []
    for night in range(nights):
        with db.building(path) as con:
            _night(con, night, drop_first=drop_first)
        con = duckdb.connect(str(path), read_only=True)
        free, block = con.execute(
            "SELECT free_blocks, block_size FROM pragma_database_size()"
        ).fetchone()
        con.close()
        sizes.append((path.stat().st_size, free * block))
    return sizes


@pytest.mark.slow  # ten builds of a few MB each (~3 s of CPU)
def test_the_file_stays_bounded_over_builds_and_holds_a_rebuilt_mart_once(tmp_path):
    nights = 5
    dropping = _nights(tmp_path / "drop.duckdb", nights, drop_first=True)
    replacing = _nights(tmp_path / "replace.duckdb", nights, drop_first=False)
    # after the second build the file grows by no more than the history's few blocks
    block = 256 << 10
    assert max(size for size, _ in dropping[2:]) <= dropping[1][0] + 2 * block, dropping
    # a CREATE OR REPLACE alone leaves the old mart's blocks free until the next night:
    # the file holds the staged rows, the mart and both their old copies
    assert max(size for size, _ in dropping) < min(size for size, _ in replacing[1:]), (
        dropping,
        replacing,
    )
    assert dropping[-1][1] < replacing[-1][1], (dropping, replacing)
    assert not os.path.exists(tmp_path / "drop.duckdb.next")


def test_a_refresh_merges_its_history_once_the_stored_marts_are_dropped(tmp_path, monkeypatch):
    """The history's changes are written at a checkpoint after the marts' blocks were
    freed (materialise.make_room), so they reuse those blocks."""
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    rows = marts(warehouse)
    present: list[set[str]] = []
    merge = history.merge

    def merge_seeing_the_marts(con, connectors, as_of):
        present.append({r[0] for r in db.run(con, "SELECT table_name FROM duckdb_tables()")})
        return merge(con, connectors, as_of)

    monkeypatch.setattr(history, "merge", merge_seeing_the_marts)
    refresh(warehouse, snapshot(tmp_path / "b", 4.0))
    assert len(present) == 1 and not present[0] & MARTS
    after = marts(warehouse)
    assert (
        set(after) == MARTS and after["mart_gpu_offers_current"] != rows["mart_gpu_offers_current"]
    )


def _night_with_history(con: duckdb.DuckDBPyConnection, night: int, *, room_first: bool) -> None:
    """A build's writes in miniature, with a history whose column a night updates in every
    row group (as closing periods updates `valid_to`): the mart dropped before or after it."""
    _stage(con, night)
    if room_first:
        db.drop_to_rewrite(con, ["mart"])
    db.run(con, "UPDATE hist SET v = v + 1 WHERE id % 50 = $n", {"n": night % 50})
    db.run(con, "INSERT INTO hist SELECT i, hash(i, $n) / 1e9 FROM range(2000) t(i)", {"n": night})
    db.drop_to_rewrite(con, ["mart"])
    db.run(con, "CREATE OR REPLACE TABLE mart AS SELECT id, price * 2 AS p, name FROM stg")


def _sizes_with_history(path: Path, nights: int, *, room_first: bool) -> list[int]:
    """The file's size after each night; one thread, so the blocks each write takes do
    not depend on how the machine schedules DuckDB's threads."""
    with db.building(path) as con:
        db.run(con, "SET threads = 1")
        db.run(con, "CREATE TABLE stg (id BIGINT, price DOUBLE, name VARCHAR)")
        db.run(
            con, "CREATE TABLE hist AS SELECT i AS id, hash(i) / 1e9 AS v FROM range(400000) t(i)"
        )
    sizes = []
    for night in range(nights):
        with db.building(path) as con:
            db.run(con, "SET threads = 1")
            _night_with_history(con, night, room_first=room_first)
        sizes.append(path.stat().st_size)
    return sizes


@pytest.mark.slow  # ten builds of a few MB each (~4 s of CPU)
def test_marts_dropped_before_the_history_is_written_leave_it_their_blocks(tmp_path):
    # dropped after, the history's rewritten column needs blocks of its own at the
    # checkpoint that frees the mart's, appended to the file
    first = _sizes_with_history(tmp_path / "first.duckdb", 5, room_first=True)
    after = _sizes_with_history(tmp_path / "after.duckdb", 5, room_first=False)
    # (the file is the highest block a build used: it moves by a few blocks a night)
    assert max(first) < min(after[1:]), (first, after)

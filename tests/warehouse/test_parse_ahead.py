"""A batched connector's pages parsed while they land (warehouse.parse_ahead): staged only
after the ledger names them, exactly as the parse after the landing would stage them; a
page the ledger would list otherwise stops it; a failure in a batch fails the provider
with its pages recorded and nothing staged; a landing that fails or a kill leaves nothing
behind."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import duckdb
import pytest

from common.errors import InvalidInput
from connectors.errors import MissingCredentials, SourceUnavailable
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import FetchFailure
from flows import pipeline
from samples.azure import azure_retail_item, azure_retail_page
from tests._warehouse import refresh as pipeline_refresh
from tests.warehouse.test_build_room import MARTS, marts, refresh, refresh_killed, sha
from warehouse import batches, rawpack
from warehouse.parse_ahead import ParseAhead
from warehouse.rawstore import RawStore

STAGED = "stg_azure__offers"
PAGES = 7


def snapshot(root: Path, price: float, *, same_as: Path | None = None, broken: int = -1) -> Path:
    """PAGES Azure pages in the real shape, each its own walk (scope), 20 items each (one
    quarantined: its price an object); `price` moves every price. With `same_as`, every
    page but the first is that snapshot's file; page `broken` does not parse at all."""
    folder = root / "azure" / "retail_prices"
    folder.mkdir(parents=True)
    for n in range(PAGES):
        name = f"p{n:04d}.json"
        if same_as is not None and n:
            (folder / name).write_bytes((same_as / "azure" / "retail_prices" / name).read_bytes())
            continue
        items = [
            azure_retail_item(
                arm_sku="Standard_NC24ads_A100_v4",
                display="NC24ads A100 v4",
                series="NCadsA100_v4",
                region=f"region{n:02d}{i // 2:02d}",
                location="X",
                price=price + i / 1e3,
                **({"suffix": " Spot"} if i % 2 else {}),
            )
            for i in range(20)
        ]
        items[5]["retailPrice"] = {"value": 1}  # quarantined with its reason
        body = {"Items": "not a list"} if n == broken else azure_retail_page(items, None)
        doc = {"fetched_at": "2026-11-20T02:00:00Z", "request": {"region": f"page{n:04d}"}}
        (folder / name).write_text(json.dumps({**doc, "body": body}))
    return root


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    """Two or three of these pages to a batch."""
    monkeypatch.setattr(batches, "BATCH_BYTES", 20_000)


@pytest.fixture
def ahead_used(monkeypatch) -> list[bool]:
    """Whether each refresh's staging took the batches parsed while the pages landed."""
    used: list[bool] = []
    real = ParseAhead.parsed

    def parsed(self, index):
        got = real(self, index)
        used.append(got is not None)
        return got

    monkeypatch.setattr(ParseAhead, "parsed", parsed)
    return used


def not_ahead(monkeypatch) -> None:
    """The parse after the landing only: the landing is not followed."""
    monkeypatch.setattr(ParseAhead, "follow", lambda self, page: False)


def staged(warehouse: Path) -> dict[str, list]:
    """The staged offers (their load named by scope: a run's id differs), the quarantine
    and the counts of each load, as the warehouse holds them."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        scope = "regexp_extract(load_id, ':([^:]*)$', 1)"
        return {
            "offers": sorted(
                con.execute(f"SELECT * EXCLUDE (load_id), {scope} FROM {STAGED}").fetchall()
            ),
            "quarantine": sorted(
                con.execute(f"SELECT reason, record, {scope} FROM quarantine").fetchall()
            ),
            "loads": sorted(
                con.execute(
                    "SELECT scope, pages, rows, rejected, excluded, unknown_gpu FROM _loads "
                    "WHERE run_id = (SELECT max(run_id) FROM _loads)"
                ).fetchall()
            ),
        }
    finally:
        con.close()


def published(warehouse: Path) -> dict[str, list]:
    """Every stored mart's rows, without the columns that name a load (a run's id differs)."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        columns = con.execute(
            """SELECT table_name, list(column_name ORDER BY column_index) FROM duckdb_columns()
               WHERE table_name IN (SELECT unnest(?)) AND column_name NOT LIKE '%load_id'
               GROUP BY ALL""",
            [sorted(MARTS)],
        ).fetchall()
        return {t: sorted(con.execute(f"SELECT {', '.join(c)} FROM {t}").fetchall()) for t, c in columns}
    finally:
        con.close()


def test_batches_parsed_while_the_pages_land_stage_what_a_parse_after_the_landing_does(
    tmp_path, monkeypatch, ahead_used
):
    snap = snapshot(tmp_path / "s", 3.0)
    ahead, after = tmp_path / "ahead.duckdb", tmp_path / "after.duckdb"
    follow = ParseAhead.follow
    summary = refresh(ahead, snap)
    assert ahead_used == [True]
    not_ahead(monkeypatch)
    assert refresh(after, snap).providers[0].loaded == summary.providers[0].loaded == 133
    assert ahead_used == [True, False]
    mine = staged(ahead)
    assert mine == staged(after)
    assert len(mine["quarantine"]) == PAGES and mine["loads"][0][1:4] == (1, 19, 1)
    assert published(ahead) == published(after)
    # unchanged: nothing is written, so nothing is parsed ahead (nor at all), and the
    # landing stops handing pages on at the first
    followed: list = []
    monkeypatch.setattr(ParseAhead, "follow", lambda self, p: followed.append(p) or follow(self, p))
    again = refresh(ahead, snap)
    assert again.providers[0].reused and ahead_used == [True, False]
    assert len(followed) == 1 and not followed[0].written
    assert not [t for t in threading.enumerate() if t.name == "parse-ahead"]


def test_pages_parsed_ahead_are_read_from_the_pack_being_written_when_not_held(
    tmp_path, monkeypatch, ahead_used
):
    """Nothing held for the parse (`RawStore.keep`), most objects packed: the batches
    parsed while the pages land read them from the landing's unfinished pack."""
    monkeypatch.setattr(pipeline, "_KEEP_BYTES", 0)
    monkeypatch.setattr(rawpack, "PACK_AFTER", 2)
    snap = snapshot(tmp_path / "s", 3.0)
    ahead, after = tmp_path / "ahead.duckdb", tmp_path / "after.duckdb"
    refresh(ahead, snap)
    assert ahead_used == [True]
    assert list(RawStore.beside(ahead).packs.glob("*.pack"))
    not_ahead(monkeypatch)
    refresh(after, snap)
    assert staged(ahead) == staged(after)


def test_a_page_stored_before_stops_the_parse_ahead_and_the_parse_after_the_landing_runs(
    tmp_path, monkeypatch, ahead_used
):
    first = snapshot(tmp_path / "a", 3.0)
    second = snapshot(tmp_path / "b", 4.0, same_as=first)  # its first page alone is new
    ahead, after = tmp_path / "ahead.duckdb", tmp_path / "after.duckdb"
    refresh(ahead, first)
    refresh(ahead, second)  # the first page parsed ahead; the second was stored: stopped
    assert ahead_used == [True, False]
    not_ahead(monkeypatch)
    refresh(after, first)
    refresh(after, second)
    assert staged(ahead) == staged(after)
    assert published(ahead) == published(after)


def test_a_batch_parsed_ahead_that_fails_fails_its_provider_with_every_page_recorded(
    tmp_path, ahead_used
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    before, rows = staged(warehouse), marts(warehouse)
    summary = refresh(warehouse, snapshot(tmp_path / "b", 4.0, broken=4))
    assert ahead_used == [True, True]  # the failure came from the batch parsed ahead
    (azure,) = summary.providers
    assert azure.parse_failed and "error deserializing" in azure.failed[0]
    # nothing staged half-way: the offers, their counts and the marts are the last good ones
    assert staged(warehouse)["offers"] == before["offers"]
    assert marts(warehouse) == rows
    # every page the failed parse read is recorded, its object stored
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        loads = con.execute(
            "SELECT count(*), sum(pages), min(status) FROM _loads WHERE run_id = ?",
            [summary.run_id],
        ).fetchall()
        shas = con.execute(
            "SELECT p.sha256 FROM _load_pages p JOIN _loads l USING (load_id) WHERE l.run_id = ?",
            [summary.run_id],
        ).fetchall()
        parsed_from = con.execute("SELECT run_id FROM _staged").fetchall()
    finally:
        con.close()
    assert loads == [(PAGES, PAGES, "ok")]
    store = RawStore.beside(warehouse)
    assert len(shas) == PAGES and all(store.has(s) for (s,) in shas)
    assert parsed_from != [(summary.run_id,)]


def test_a_landing_that_fails_leaves_no_parse_running_and_the_warehouse_as_it_was(
    tmp_path, ahead_used
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    published = sha(warehouse)
    bad = snapshot(tmp_path / "b", 4.0)
    (bad / "azure" / "retail_prices" / "p0005.json").write_text("{not json")
    with pytest.raises(InvalidInput, match=r"p0005\.json"):
        refresh(warehouse, bad)
    assert not [t for t in threading.enumerate() if t.name == "parse-ahead"]
    assert sha(warehouse) == published
    assert ahead_used == [True]  # the failed refresh never reached its staging


def test_a_fetch_failure_of_another_endpoint_keeps_the_parse_ahead_one_of_its_own_stops_it(
    tmp_path, monkeypatch, ahead_used
):
    pages = list(kit_snapshot.read_provider(snapshot(tmp_path / "s", 3.0), "azure"))
    skus = FetchFailure("azure", "resource_skus", "", MissingCredentials("azure", "resource_skus", "no login"))
    region = FetchFailure("azure", "retail_prices", "page9999", SourceUnavailable("azure", "retail_prices", "5xx"))
    ahead, other, after = (tmp_path / f"{n}.duckdb" for n in ("ahead", "other", "after"))
    skipped = pipeline_refresh(ahead, {"azure": [*pages, skus]})  # as a live walk ends
    stopped = pipeline_refresh(other, {"azure": [*pages[:3], region, *pages[3:]]})
    assert ahead_used == [True, False]
    assert skipped.providers[0].skipped and stopped.providers[0].failed
    not_ahead(monkeypatch)
    pipeline_refresh(after, {"azure": pages})
    assert staged(ahead)["offers"] == staged(other)["offers"] == staged(after)["offers"]


def test_a_live_walk_of_scopes_in_any_order_is_parsed_ahead_in_the_ledger_order(
    tmp_path, monkeypatch, ahead_used
):
    pages = list(kit_snapshot.read_provider(snapshot(tmp_path / "s", 3.0), "azure"))
    walked = [*pages[4:], *reversed(pages[:4])]  # regions walked in their own order
    ahead, after = tmp_path / "ahead.duckdb", tmp_path / "after.duckdb"
    pipeline_refresh(ahead, {"azure": pipeline.SpooledPages(walked)})
    assert ahead_used == [True]
    not_ahead(monkeypatch)
    pipeline_refresh(after, {"azure": pages})
    assert staged(ahead) == staged(after)


# killed once the first batch is parsed ahead, its landing still under way
FOLLOW_THEN_DIE = """
import time
from warehouse import batches, parse_ahead

batches.BATCH_BYTES = 20_000
real = parse_ahead.ParseAhead.follow
followed = []

def follow_then_die(self, page):
    following = real(self, page)
    followed.append(page)
    if len(followed) == 4:
        for _ in range(600):
            if self._out.qsize():
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(0.05)
    return following

parse_ahead.ParseAhead.follow = follow_then_die
"""


@pytest.mark.slow  # a refresh in a child process, killed
def test_a_kill_while_batches_are_parsed_ahead_leaves_the_published_file_as_it_was(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    published, rows, before = sha(warehouse), marts(warehouse), staged(warehouse)
    refresh_killed(FOLLOW_THEN_DIE, warehouse, snapshot(tmp_path / "b", 4.0))
    assert sha(warehouse) == published and marts(warehouse) == rows
    assert staged(warehouse) == before
    summary = refresh(warehouse, snapshot(tmp_path / "c", 4.0))  # the next refresh stages all
    assert summary.providers[0].loaded == 133 and marts(warehouse) != rows

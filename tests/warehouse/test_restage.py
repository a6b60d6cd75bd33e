"""A connector's staged offers are deleted and checkpointed before its pages are parsed
again (their blocks take the new offers, `warehouse.restage`), and put back from the
published file when the parse fails: the provider keeps its last good offers, and a
build killed after the delete leaves the published file as it was."""

from __future__ import annotations

import duckdb
import pytest

from common.errors import PricingError
from flows import pipeline
from tests.warehouse.test_build_room import marts, refresh, refresh_killed, sha, snapshot
from warehouse import db, restage

STAGED = "stg_azure__offers"


def staged(warehouse) -> list[str]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return sorted(map(repr, con.execute(f"SELECT * FROM {STAGED}").fetchall()))
    finally:
        con.close()


@pytest.fixture(autouse=True)
def every_staged_table(monkeypatch):
    """The 60 offers staged here fill one block: emptied all the same."""
    monkeypatch.setattr(restage, "MIN_BLOCKS", 1)


def test_empty_frees_the_staged_offers_blocks_only_when_the_pages_changed(
    tmp_path, monkeypatch
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    offers = staged(warehouse)
    with pytest.raises(RuntimeError, match="discarded"), db.building(warehouse) as con:
        # nothing landed since: the same pages and code, nothing to parse, nothing emptied
        assert restage.empty(con, "azure") is None
        assert db.run(con, f"SELECT count(*) FROM {STAGED}")[0][0] == 60
        # a new digest of the pages (as a landing of changed pages leaves it)
        db.run(con, "UPDATE _staged SET pages_digest = 'other' WHERE connector = 'azure'")
        # a table in fewer blocks than MIN_BLOCKS is left as it was
        monkeypatch.setattr(restage, "MIN_BLOCKS", 2)
        assert restage.empty(con, "azure") is None
        assert db.run(con, f"SELECT count(*) FROM {STAGED}")[0][0] == 60
        monkeypatch.setattr(restage, "MIN_BLOCKS", 1)
        free = db.run(con, "SELECT free_blocks FROM pragma_database_size()")[0][0]
        assert restage.empty(con, "azure") == 60
        assert db.run(con, f"SELECT count(*) FROM {STAGED}")[0][0] == 0
        # checkpointed: the rows' blocks are free for the offers staged next
        assert not db.run(con, f"SELECT 1 FROM pragma_storage_info('{STAGED}') LIMIT 1")
        assert db.run(con, "SELECT free_blocks FROM pragma_database_size()")[0][0] > free
        assert restage.restore(con, "azure", warehouse) == 60
        assert sorted(map(repr, db.run(con, f"SELECT * FROM {STAGED}"))) == offers
        raise RuntimeError("the build's copy is discarded")
    assert staged(warehouse) == offers


def test_a_parse_that_fails_after_the_offers_were_emptied_keeps_the_last_good_ones(
    tmp_path, monkeypatch
):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    offers, rows = staged(warehouse), marts(warehouse)
    seen: list[int] = []

    def fail_after_the_empty(con, run_id, name, summary, store=None, **kw):
        seen.append(kw["emptied"])
        # emptied and checkpointed before this transaction
        assert db.run(con, f"SELECT count(*) FROM {STAGED}")[0][0] == 0
        raise PricingError("azure: the pages no longer parse")

    monkeypatch.setattr(pipeline, "stage_provider", fail_after_the_empty)
    summary = refresh(warehouse, snapshot(tmp_path / "b", 4.0))
    assert seen == [60]
    (azure,) = summary.providers
    assert azure.parse_failed and azure.failed[0].startswith("parse: ")
    assert staged(warehouse) == offers  # put back from the published file
    assert marts(warehouse) == rows

    monkeypatch.undo()  # the next parse stages the new prices
    refresh(warehouse, snapshot(tmp_path / "c", 4.0))
    assert staged(warehouse) != offers and len(staged(warehouse)) == len(offers)


EMPTY_THEN_DIE = """
from warehouse import restage

real = restage.empty
restage.MIN_BLOCKS = 1

def empty_then_die(con, name, parsed=None):
    assert real(con, name, parsed) == 60
    os.kill(os.getpid(), signal.SIGKILL)

restage.empty = empty_then_die
"""


@pytest.mark.slow  # a refresh in a child process, killed
def test_a_kill_after_the_offers_were_emptied_leaves_the_published_file(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    refresh(warehouse, snapshot(tmp_path / "a", 3.0))
    published, offers = sha(warehouse), staged(warehouse)
    refresh_killed(EMPTY_THEN_DIE, warehouse, snapshot(tmp_path / "b", 4.0))
    assert sha(warehouse) == published
    assert staged(warehouse) == offers
    refresh(warehouse, snapshot(tmp_path / "c", 4.0))
    assert staged(warehouse) != offers
    assert not warehouse.with_name(warehouse.name + ".next").exists()

"""A batch's offers are staged on a worker while the next batch is parsed
(warehouse.batches.stage_behind): in order, each result kept without its offers, and a
failed stage stops the parse and raises."""

from __future__ import annotations

import threading

import duckdb
import polars as pl
import pytest

from connectors.kit.normalise import Normalised
from warehouse import batches


def _results(n: int, parsed: list[int]):
    for i in range(n):
        parsed.append(i)
        yield Normalised(
            offers=pl.DataFrame({"i": [i, i]}),
            rejected=pl.DataFrame({"load_id": [f"load-{i}"]}),
            excluded=pl.DataFrame(),
            unknown_gpu=pl.DataFrame(),
        )


def test_offers_are_staged_in_order_on_a_worker_and_dropped_from_the_results():
    staged, threads, parsed = [], set(), []

    def stage(offers: pl.DataFrame) -> None:
        threads.add(threading.get_ident())
        staged.append(offers["i"].to_list())

    done = batches.stage_behind(_results(4, parsed), stage)
    assert staged == [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert threads and threading.get_ident() not in threads
    assert [r.offers.height for r in done] == [0, 0, 0, 0]
    assert [r.rejected["load_id"][0] for r in done] == ["load-0", "load-1", "load-2", "load-3"]


def test_a_failed_stage_stops_the_parse_and_raises():
    parsed: list[int] = []

    def stage(offers: pl.DataFrame) -> None:
        if offers["i"][0] == 1:
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        batches.stage_behind(_results(10, parsed), stage)
    # the batch after the failed one may be parsed (it was, while staging ran); no more
    assert parsed == [0, 1, 2]


def _setting(con) -> str:
    return con.execute("SELECT current_setting('disabled_compression_methods')").fetchone()[0]


def _offers(**columns) -> pl.DataFrame:
    """A frame with the staged columns a batch is sorted by (batches.STAGED_ORDER)."""
    n = len(next(iter(columns.values())))
    base = {c: [None] * n for c in batches.STAGED_ORDER}
    return pl.DataFrame({**base, **columns}, schema_overrides={c: pl.String for c in base})


TABLE = "CREATE TABLE t (pricing_model VARCHAR, pricing_detail VARCHAR, instance_type VARCHAR, "
TABLE += "effective_at VARCHAR, a VARCHAR NOT NULL, b DOUBLE)"


def test_offers_are_inserted_and_the_compression_setting_is_restored(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(TABLE)
    before = _setting(con)
    batches.insert_offers(con, "t", _offers(b=[1.5, 2.5], a=["x", "y"]))
    assert con.execute("SELECT a, b FROM t ORDER BY a").fetchall() == [("x", 1.5), ("y", 2.5)]
    assert _setting(con) == before
    with pytest.raises(duckdb.ConstraintException):  # a failed insert restores it too
        batches.insert_offers(con, "t", _offers(a=[None], b=[1.0]))
    assert _setting(con) == before


def test_a_batch_is_stored_sorted_by_pricing_model_detail_instance_type_and_date(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(TABLE)
    batches.insert_offers(
        con,
        "t",
        _offers(
            pricing_model=["reserved_1y", "on_demand", "reserved_1y", "on_demand", "on_demand"],
            pricing_detail=["x", None, "x", None, None],
            instance_type=["b", "b", "a", "a", "a"],
            effective_at=["2026-01-01", "2026-01-01", "2026-01-01", "2026-02-01", "2026-01-01"],
            a=["1", "2", "3", "4", "5"],
        ),
    )
    stored = [a for (a,) in con.execute("SELECT a FROM t ORDER BY rowid").fetchall()]
    assert stored == ["5", "4", "2", "3", "1"]

"""A batch's offers are staged on a worker while the next batch is parsed
(warehouse.batches.stage_behind): in order, each result kept without its offers, and a
failed stage stops the parse and raises."""

from __future__ import annotations

import threading

import duckdb
import polars as pl
import pytest

from connectors.kit.normalise import Normalised
from warehouse import batches, db


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


def test_staged_rows_are_inserted_and_the_compression_setting_is_restored(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("CREATE TABLE t (a VARCHAR NOT NULL, b DOUBLE)")
    before = _setting(con)
    db.insert_frame(con, "t", pl.DataFrame({"b": [1.5, 2.5], "a": ["x", "y"]}))
    assert con.execute("SELECT a, b FROM t ORDER BY a").fetchall() == [("x", 1.5), ("y", 2.5)]
    assert _setting(con) == before
    # every Arrow shape a parse hands over reads back as it was (strings as views, a
    # categorical, lists, structs, bytes)
    con.execute("CREATE TABLE u (s VARCHAR, c VARCHAR, l BIGINT[], r STRUCT(k VARCHAR), b BLOB)")
    frame = pl.DataFrame(
        {
            "s": ["x", None, "a longer text than twelve bytes"],
            "c": pl.Series(["p", "q", None]).cast(pl.Categorical),
            "l": [[1], [2, 3], None],
            "r": [{"k": "v"}, None, {"k": None}],
            "b": [b"1", None, b"\x00"],
        }
    )
    assert db.insert_frame(con, "u", frame) == 3
    assert con.execute("SELECT * FROM u").fetchall() == [
        ("x", "p", [1], {"k": "v"}, b"1"),
        (None, "q", [2, 3], None, None),
        ("a longer text than twelve bytes", None, None, {"k": None}, b"\x00"),
    ]
    with pytest.raises(duckdb.ConstraintException):  # a failed insert restores it too
        db.insert_frame(con, "t", pl.DataFrame({"a": [None], "b": [1.0]}))
    assert _setting(con) == before


def test_a_batch_is_staged_sorted_by_date_pricing_model_detail_and_instance_type():
    offers = pl.DataFrame(
        {
            "pricing_model": ["reserved_1y", "on_demand", "reserved_1y", "on_demand", "on_demand"],
            "pricing_detail": ["x", None, "x", None, None],
            "instance_type": ["b", "b", "a", "a", "a"],
            "effective_at": ["2026-01-01", "2026-01-01", "2026-01-01", "2026-02-01", "2026-01-01"],
            "n": [1, 2, 3, 4, 5],
        }
    )
    assert batches.in_staged_order(offers)["n"].to_list() == [5, 2, 3, 1, 4]

"""Pages are decoded in slices of about SLICE_BYTES (connectors.kit.decode): whatever the
slicing, the rows are those of one decode of every page, in page and list order, each
located where its item is."""

from __future__ import annotations

import json
from datetime import datetime

import polars as pl
import pytest

from connectors.kit import decode

ITEM = pl.Struct({"name": pl.String, "price": pl.Float64})
PAGE = pl.Struct({"items": pl.List(ITEM)})


def _pages(sizes: list[int]) -> pl.DataFrame:
    payloads = [
        json.dumps({"items": [{"name": f"p{p}-i{i}", "price": p + i / 10} for i in range(n)]})
        for p, n in enumerate(sizes)
    ]
    return pl.DataFrame(
        {
            "endpoint": ["prices"] * len(sizes),
            "load_id": [f"load-{p}" for p in range(len(sizes))],
            "fetched_at": [datetime(2026, 1, 1)] * len(sizes),
            "payload": payloads,
        }
    )


@pytest.mark.parametrize("slice_bytes", [1, 100, 700, 1 << 30])
def test_every_slicing_gives_the_rows_of_one_decode(monkeypatch, slice_bytes):
    pages = _pages([3, 1, 7, 2, 5, 4, 6, 1, 2, 9])
    monkeypatch.setattr(decode, "SLICE_BYTES", slice_bytes)
    slices = decode._slices(pages)
    # consecutive, covering every page once
    assert [o for o, _ in slices] == [sum(n for _, n in slices[:k]) for k in range(len(slices))]
    assert sum(n for _, n in slices) == pages.height
    whole = pages.select(
        "load_id", item=pl.col("payload").str.json_decode(PAGE).struct.field("items")
    ).explode("item")
    rows = decode.explode_pages(pages, PAGE, "items")
    assert rows.select("load_id", "name", "price").equals(
        whole.select("load_id", pl.col("item").struct.unnest())
    )
    located = decode.explode_pages(pages, PAGE, "items", located=True)
    at = located["_at"].struct.unnest()
    assert [f"p{p}-i{i}" for p, i in at.rows()] == located["name"].to_list()
    back = decode.item_records(pages, PAGE, "items", located["_at"].gather([0, 5, 39]))
    assert back.struct.field("name").to_list() == located["name"].gather([0, 5, 39]).to_list()


def test_slices_hold_about_slice_bytes_of_pages_and_feed_every_core(monkeypatch):
    pages = _pages([10] * 20)  # pages of about one size
    size = pages["payload"].str.len_bytes()[0]
    monkeypatch.setattr(decode.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(decode, "SLICE_BYTES", 3 * size)
    assert [n for _, n in decode._slices(pages)] == [3, 3, 3, 3, 3, 3, 2]
    monkeypatch.setattr(decode, "SLICE_BYTES", 1 << 30)  # never fewer slices than cores
    assert len(decode._slices(pages)) == 2

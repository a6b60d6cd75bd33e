"""Decoding raw JSON pages into rows, for every connector's parse.

`str.json_decode` runs on one thread per column chunk; a refresh holds a few large page
payloads, so they are decoded in slices collected together (`pl.collect_all`), which
uses every core: 100k Azure items decode in 0.22 s instead of 0.87 s on 2 cores. A slice
holds about SLICE_BYTES of pages, not a share of them per core: the decode costs more
per byte in a larger slice.

Located rows (`located=True`): a parse that decodes only the fields its rules read keeps,
instead of each raw item, where it came from (`_at`: the page's row in the pages frame and
the item's place in its list); `item_records` decodes the items of a few such rows again,
whole, from their pages' text: the quarantine record of a rejected row is then the item as
the full declared schema reads it, as if every row had kept it.

Drift guard: a page whose item list is missing or null (`{}`, `"Items": null`, a renamed
key) fails the parse, and so the provider, which keeps its last good data; so does an
empty list, unless the caller declares that a page of the endpoint may legitimately hold
none (`allow_empty`: a region without spot price changes, a last page). Otherwise one
drifted page would erase its offers with the run reported ok.
"""

from __future__ import annotations

import os
from itertools import accumulate

import polars as pl

from common.errors import PricingError

PAGE_COLUMNS = ("endpoint", "load_id", "fetched_at")
# the payload bytes decoded per slice: measured on 300 Azure pages (~600 KB each), slices of
# 2-3 pages decode in ~0.6 s CPU against ~0.75 for 7 pages and ~1.0 for 38 (the decode's
# cost grows with the slice, not only with the bytes)
SLICE_BYTES = 3 << 19


class PageDrift(PricingError):
    """A page that should hold items and holds none, or lacks its item list."""


def _guard(rows: pl.DataFrame, items: str, allow_empty: bool) -> None:
    """Raise PageDrift naming the first page whose item list is null, or empty when
    pages may not be (`rows`: one row per page, `_n` the length of its list)."""
    bad = rows.filter(pl.col("_n").is_null() | ((pl.col("_n") == 0) & (not allow_empty)))
    if bad.is_empty():
        return
    page = bad.row(0, named=True)
    what = f"no {items!r} list" if page["_n"] is None else f"an empty {items!r} list"
    raise PageDrift(
        f"{page['endpoint']}: {bad.height} of {rows.height} page(s) hold {what} (first: load "
        f"{page['load_id']}, request {page['request'][:200]}): the source's shape drifted or "
        "the page is truncated"
    )


def guard_pages(
    pages: pl.DataFrame, items: pl.Expr, name: str, *, allow_empty: bool = False
) -> None:
    """The page guard for a parse that decodes its pages itself: `items` (an expression
    over the pages frame giving each page's item list) must be a list on every page, and a
    non-empty one unless `allow_empty`; else PageDrift."""
    request = pl.col("request") if "request" in pages.columns else pl.lit("")
    _guard(
        pages.select("endpoint", "load_id", _n=items.list.len(), request=request.fill_null("")),
        name,
        allow_empty,
    )


def _path_dtype(dtype: pl.Struct, path: tuple[str, ...]) -> pl.DataType:
    field: pl.DataType = dtype
    for key in path:
        field = {f.name: f.dtype for f in field.fields}[key]  # type: ignore[attr-defined]
    return field.inner  # type: ignore[attr-defined]


def explode_pages(
    pages: pl.DataFrame,
    dtype: pl.Struct,
    items: str | tuple[str, ...],
    *,
    allow_empty: bool = False,
    located: bool = False,
) -> pl.DataFrame:
    """One row per item of each page's `items` list (a key, or a path of keys such as
    `("data", "gpuTypes")`): the page columns, the raw item as a struct `_item` (for
    quarantine), and the item's fields unnested. With `located`, each row carries `_at`
    (`page`: its page's row in `pages`, `pos`: its place in the list) instead of `_item`,
    for `item_records`. A page without the list, or with an empty one unless
    `allow_empty`, raises PageDrift."""
    path = (items,) if isinstance(items, str) else items
    inner = _path_dtype(dtype, path)
    if pages.is_empty():
        empty = pl.DataFrame(
            schema={**{c: pages.schema.get(c, pl.String) for c in PAGE_COLUMNS}, "_item": inner}
        )
        empty = empty.with_columns(pl.col("_item").struct.unnest())
        if located:
            return empty.drop("_item").with_columns(_at=pl.lit(None, dtype=AT))
        return empty
    request = pl.col("request") if "request" in pages.columns else pl.lit("")
    lazy = [
        pages.slice(offset, length)
        .lazy()
        .with_row_index("_page", offset=offset)
        .select(
            *PAGE_COLUMNS,
            "_page",
            request.alias("_request"),
            _listed(dtype, path).alias("_item"),
        )
        .with_columns(_n=pl.col("_item").list.len())
        for offset, length in _slices(pages)
    ]
    decoded = pl.concat(pl.collect_all(lazy), rechunk=False)
    _guard(
        decoded.select("endpoint", "load_id", "_n", request=pl.col("_request").fill_null("")),
        ".".join(path),
        allow_empty,
    )
    if not located:
        rows = decoded.drop("_request", "_n", "_page").explode("_item")
        return rows.drop_nulls("_item").with_columns(pl.col("_item").struct.unnest())
    rows = (
        decoded.drop("_request")
        .with_columns(_pos=pl.int_ranges(pl.col("_n"), dtype=pl.UInt32))
        .drop("_n")
        .explode("_item", "_pos")
        .drop_nulls("_item")
    )
    return rows.with_columns(
        pl.col("_item").struct.unnest(), _at=pl.struct(page="_page", pos="_pos")
    ).drop("_item", "_page", "_pos")


def _slices(pages: pl.DataFrame) -> list[tuple[int, int]]:
    """(offset, length) of consecutive runs of pages of about SLICE_BYTES of payload (at
    least one page each, at least as many runs as cores): the slices decoded together."""
    size = pages.get_column("payload").str.len_bytes().fill_null(0).cast(pl.Int64)
    per = max(1, min(SLICE_BYTES, int(size.sum()) // (os.cpu_count() or 1)))
    run = ((size.cum_sum() - size) // per).rle()
    lengths = run.struct.field("len").to_list()
    return list(zip(accumulate([0, *lengths[:-1]]), lengths, strict=True))


# where a located row's item is: its page's row in the pages frame, its place in the list
AT = pl.Struct({"page": pl.UInt32, "pos": pl.UInt32})


def _listed(dtype: pl.Struct, path: tuple[str, ...]) -> pl.Expr:
    listed = pl.col("payload").str.json_decode(dtype)
    for key in path:
        listed = listed.struct.field(key)
    return listed


def item_records(
    pages: pl.DataFrame, dtype: pl.Struct, items: str | tuple[str, ...], at: pl.Series
) -> pl.Series:
    """The raw items at `at` (located rows of `explode_pages` over the same `pages`), in
    that order, decoded whole with `dtype`: only the pages they are on are decoded again
    (a refresh's rejected rows are few)."""
    path = (items,) if isinstance(items, str) else items
    wanted = at.struct.unnest().with_row_index("_row")
    if wanted.is_empty():
        return pl.Series("_item", [], dtype=_path_dtype(dtype, path))
    decoded = (
        pages.with_row_index("page")
        .filter(pl.col("page").is_in(wanted["page"].unique().implode()))
        .select("page", _listed(dtype, path).alias("_item"))
        .with_columns(pos=pl.int_ranges(pl.col("_item").list.len(), dtype=pl.UInt32))
        .explode("_item", "pos")
    )
    found = wanted.join(decoded, on=["page", "pos"], how="left").sort("_row")
    return found.get_column("_item")

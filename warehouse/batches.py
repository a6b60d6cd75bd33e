"""A batched connector's pages parsed a batch at a time, each batch's offers staged as soon
as it is normalised, and one staged row per offer key kept in the staged table itself
(DuckDB): neither a million-item crawl nor its parsed offers sit in memory whole (the
refresh's peak is a batch, not the walk).

- `normalise_in_batches`: the batched endpoint's pages, ~BATCH_BYTES at a time, read
  from the raw store a batch ahead (`read_ahead`), each batch's offers handed to a stage;
- `staged`: a parse's normalised result with its offers staged and dropped from it;
- `unique_offers`: the one-row-per-key rule over a staged table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING

import duckdb

from common.schemas import OFFER_KEY, STAGED_COLUMNS
from connectors.errors import UnexpectedResponse
from connectors.kit.connector import Connector
from connectors.kit.page import pages_frame
from warehouse import raw
from warehouse.db import run
from warehouse.rawstore import RawStore

if TYPE_CHECKING:
    import polars as pl

    from connectors.kit.normalise import Normalised

# ~55 pages of 1,000 Azure items: at 64 MB a 1M-item refresh peaked ~80 MiB higher for the
# same CPU (measured: in-process stage peak 979 against 774 MiB)
BATCH_BYTES = 32 << 20


def normalise_in_batches(
    connector: Connector,
    index: pl.DataFrame,
    store: RawStore,
    stage: Callable[[pl.DataFrame], None],
    parsed: Iterable[Normalised] | None = None,
) -> Normalised:
    """Parse the batched endpoint's pages ~BATCH_BYTES at a time, read straight from the
    raw store (each batch with every page of the other endpoints), each batch's offers
    handed to `stage` as soon as they are normalised, so neither a million-item crawl nor
    its parsed offers sit in memory whole. `parsed`: those batches' results already under
    way, parsed from the same pages while they landed (warehouse.parse_ahead). Returns the
    rest of the result (its `offers` empty: they are staged)."""
    import polars as pl

    from connectors.kit.normalise import combine

    big = connector.batched_endpoint
    rest = None
    if parsed is None:
        rest = other_pages(connector, index, store)
        parsed = parse_batches(
            connector,
            rest,
            raw.iter_batches(index.filter(pl.col("endpoint") == big), store, BATCH_BYTES),
        )
    batches = stage_behind(parsed, stage)
    if not batches:  # only the other endpoints have pages
        rest = other_pages(connector, index, store) if rest is None else rest
        if rest.height:
            batches.append(staged(connector.parse(rest).normalised(), stage))
    if not batches:
        raise UnexpectedResponse(connector.name, big, "no current pages to parse")
    return combine(batches)


def other_pages(connector: Connector, index: pl.DataFrame, store: RawStore) -> pl.DataFrame:
    """The pages frame of `index`'s pages outside the batched endpoint, with their
    payloads: what rides along with every batch."""
    import polars as pl

    other = index.filter(pl.col("endpoint") != connector.batched_endpoint)
    return pages_frame(raw.with_payloads(other, store))


def parse_batches(
    connector: Connector, rest: pl.DataFrame, batches: Iterator[pl.DataFrame]
) -> Iterator[Normalised]:
    """Each batch of the batched endpoint's pages (index rows with their payloads, the next
    one read on a worker meanwhile: `read_ahead`) parsed and normalised with the other
    endpoints' pages (`rest`, a pages frame)."""
    import polars as pl

    for batch in read_ahead(batches):
        pages = pages_frame(batch)
        del batch
        if rest.height:
            pages = pl.concat([rest, pages], how="vertical")
        result = connector.parse(pages).normalised()
        del pages  # the payloads: gone before the next batch is read
        yield result


def staged(result: Normalised, stage: Callable[[pl.DataFrame], None]) -> Normalised:
    """`result` with its offers handed to `stage` and dropped from it."""
    stage(result.offers)
    return replace(result, offers=result.offers.clear())


def stage_behind(
    results: Iterable[Normalised], stage: Callable[[pl.DataFrame], None]
) -> list[Normalised]:
    """`results` with their offers handed to `stage` (in order, on a worker) and dropped:
    each batch's offers are staged while the next batch is parsed (DuckDB's insert and
    Polars' decode release the GIL; a batch's offers are a few MB). A failed stage stops
    the parse at the next batch and raises."""
    done: list[Normalised] = []
    with ThreadPoolExecutor(1) as stager:
        staging: Future[None] | None = None
        for result in results:
            if staging is not None:
                staging.result()
            staging = stager.submit(stage, result.offers)
            done.append(replace(result, offers=result.offers.clear()))
        if staging is not None:
            staging.result()
    return done


def read_ahead(batches: Iterator[pl.DataFrame]) -> Iterator[pl.DataFrame]:
    """`batches`, each next one read (decompressed and checked, which release the GIL) on
    a worker while the one before is parsed: one batch more in memory, less wall time."""
    with ThreadPoolExecutor(1) as reader:
        ahead = reader.submit(next, batches, None)
        while (batch := ahead.result()) is not None:
            ahead = reader.submit(next, batches, None)
            yield batch


# the order a batch's offers are staged in (for compression only: nothing reads the staged
# rows in order): by effective date, so the prices a night changed lie together instead of
# breaking the runs of the unchanged ones, then by pricing model, detail and instance type,
# since a page lists a size's hourly, spot and reserved prices one after the other and its
# prices change magnitude from row to row (1M Azure items after 12 nights of list prices,
# inserted a batch at a time: 46 blocks instead of 67 in page order, 51 by pricing model
# first)
STAGED_ORDER = ("effective_at", "pricing_model", "pricing_detail", "instance_type")


def in_staged_order(offers: pl.DataFrame) -> pl.DataFrame:
    """`offers` sorted by STAGED_ORDER, as a batch of them is staged."""
    return offers.sort(STAGED_ORDER, nulls_last=True, maintain_order=True)


def unique_offers(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """One staged row per offer key (checked once, here, over the staged table; history
    relies on it): where a source lists a key twice, the latest fetch wins, then the lower
    price, then the rest of the row in order (so the same pages always keep the same row).
    Returns the rows staged."""
    key = ", ".join(OFFER_KEY)
    if run(con, f"SELECT 1 FROM {table} GROUP BY {key} HAVING count(*) > 1 LIMIT 1"):
        rest = ", ".join(c for c in STAGED_COLUMNS if c not in ("fetched_at", "price_usd_per_hour"))
        run(
            con,
            f"""DELETE FROM {table} WHERE rowid IN (
                    SELECT rowid FROM {table}
                    QUALIFY row_number() OVER (
                        PARTITION BY {key}
                        ORDER BY fetched_at DESC NULLS LAST,
                                 price_usd_per_hour ASC NULLS LAST, {rest}) > 1)""",
        )
    return run(con, f"SELECT count(*) FROM {table}")[0][0]

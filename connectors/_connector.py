"""The shape every connector package exposes, so CLI, flows and tests can iterate them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import polars as pl

from connectors._page import FetchContext, FetchFailure, Page

APPEND = "append"  # every page ever landed is part of the current state (time series)
SNAPSHOT = "snapshot"  # only the latest successful load of each scope is current


@dataclass(frozen=True)
class Connector:
    name: str
    # endpoint -> SNAPSHOT | APPEND
    endpoints: dict[str, str]
    # live fetch: builds its clients from the standard credential chains
    fetch_live: Callable[[FetchContext], Iterator[Page | FetchFailure]]
    # pure: a frame of raw pages (endpoint, load_id, fetched_at, scope, source_url,
    # request, payload) -> canonical offers (warehouse.schemas.OFFER_SCHEMA, plus an
    # optional `_item` struct holding the raw record for quarantine)
    parse: Callable[[pl.DataFrame], pl.DataFrame]
    # extra staged entities: table name -> (DDL, parser over the same pages frame)
    extra_staging: dict[str, tuple[str, Callable[[pl.DataFrame], pl.DataFrame]]] = field(
        default_factory=dict
    )
    # providers a connector's rows may carry (sheets publish rows for coreweave, ...)
    emits_providers: tuple[str, ...] = ()
    # an endpoint whose pages parse independently of each other: the pipeline then parses
    # them in batches of about BATCH_BYTES of payload (each batch together with every page
    # of the other endpoints), so memory stays bounded however large the crawl
    batched_endpoint: str | None = None
    # an APPEND endpoint whose rows an extra staged table accumulates (a time series):
    # endpoint -> its table, the columns that make a row unique, and the columns of one
    # series (whose newest row by `observed_at` is the series' current offer). A refresh
    # whose parsing code is unchanged then parses only the pages landed since the last
    # parse, appends their new rows, and calls `parse(pages, latest=...)` with the newest
    # stored row of each series in place of the pages it did not re-read.
    append_staging: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict
    )

    @property
    def staging_table(self) -> str:
        return f"stg_{self.name}__offers"

    def raw_table(self, endpoint: str) -> str:
        return f"raw_{self.name}__{endpoint}"
